import Support
import Testing

@Suite struct CleanMappedPagesTests {
    /// When to let go, look after look (MB resident from files): once the start's burst is over, not
    /// while pages keep growing, not for the pages the idle work maps again after a release, and again
    /// once a later burst that grew them past the threshold is over.
    @Test func pagesGoOnceABurstIsOverAndNotForWhatIdlingMapsAgain() {
        let mb = 1 << 20
        var pages = CleanMappedPages(threshold: 4 * mb, quiet: mb / 2)
        func looks(_ readings: [Double]) -> [Bool] {
            readings.map { pages.shouldRelease(resident: Int($0 * Double(mb))) }
        }
        #expect(looks([24, 24.1]) == [false, true], "the start's pages, once it is quiet")
        pages.released(residentAfter: 2 * mb)
        #expect(looks([3, 3.1, 3.2, 3.3]) == [false, false, false, false], "what the idle pings map again stays")
        #expect(looks([9, 12, 12.1]) == [false, false, true], "a burst, let go once over")
        pages.released(residentAfter: 2 * mb)
        #expect(looks([8, 8.1]) == [false, true], "work that went on after a release goes once more")
        pages.released(residentAfter: 2 * mb)
        #expect(looks([6, 6.1, 6.2, 9.9, 10]) == [false, false, false, false, false], "then what stays is idling's, and growth under the threshold stays")
    }

    /// Letting go lowers the process's resident file pages (this test process's own code, tens of MB,
    /// mapped in by the tests that ran before), and the process goes on running that code and reading
    /// its constants.
    @Test func lettingGoLowersTheResidentFilePages() throws {
        let before = try #require(CleanMappedPages.residentFileBytes())
        let released = CleanMappedPages.release()
        let after = try #require(CleanMappedPages.residentFileBytes())
        #expect(released > 1 << 20, "the test binary's code alone is tens of MB")
        #expect(after < before)
        // The same through the looks that read this process's own statm.
        var first = CleanMappedPages(threshold: 1, quiet: Int.max), never = CleanMappedPages(threshold: Int.max, quiet: Int.max)
        let releasedFirst = first.releaseIfGrown(), releasedBelowThreshold = never.releaseIfGrown()
        #expect(releasedFirst, "the first quiet look finds the pages grown from none")
        #expect(!releasedBelowThreshold, "below the threshold nothing is let go")
        // The process goes on running the code it let go of.
        #expect(String(describing: [3, 1, 2].sorted()) == "[1, 2, 3]")
    }
}
