import Support
import Testing

@Suite struct CleanMappedPagesTests {
    /// Only private, read-only mappings of files that still exist, without a page of their own, are let go.
    @Test func onlyCleanReadOnlyFileMappingsAreLetGo() {
        func mapping(_ header: String, anonymous: Int = 0, privateDirty: Int = 0) -> String {
            """
            \(header)
            Size:                 16 kB
            Rss:                   8 kB
            Private_Clean:         8 kB
            Private_Dirty:      \(privateDirty) kB
            Anonymous:          \(anonymous) kB
            VmFlags: rd mr mw me
            """
        }
        let smaps = [
            mapping("555555554000-555555556000 r--p 00000000 fe:00 123   /usr/bin/splashd"),
            mapping("555555556000-55555555a000 r-xp 00002000 fe:00 123   /usr/bin/splashd"),
            // RELRO: read-only now, its relocated pages the process's own.
            mapping("55555555a000-55555555b000 r--p 00006000 fe:00 123   /usr/bin/splashd", anonymous: 4),
            mapping("55555555b000-55555555c000 rw-p 00007000 fe:00 123   /usr/bin/splashd", anonymous: 4, privateDirty: 4),
            mapping("55555555c000-55555555d000 r--p 00008000 fe:00 123   /usr/bin/splashd", privateDirty: 4),
            mapping("7ffff7dc0000-7ffff7f35000 r-xp 00028000 fe:00 456   /usr/lib/x86_64-linux-gnu/libc.so.6"),
            mapping("7ffff7f40000-7ffff7f41000 r-xs 00000000 00:1a 789   /tmp/orcexec.abc (deleted)"),
            mapping("7ffff7f50000-7ffff7f51000 r-xp 00000000 00:1a 790   /tmp/old library (deleted)"),
            mapping("7ffff7fc1000-7ffff7fc3000 r-xp 00000000 00:00 0     [vdso]"),
            mapping("7ffff7fd0000-7ffff7fd1000 r--p 00000000 00:00 0"),
        ].joined(separator: "\n")
        #expect(CleanMappedPages.cleanMappings(smaps) == [
            .init(start: 0x5555_5555_4000, end: 0x5555_5555_6000), .init(start: 0x5555_5555_6000, end: 0x5555_5555_a000),
            .init(start: 0x7fff_f7dc_0000, end: 0x7fff_f7f3_5000),
        ])
    }

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
        #expect(looks([6, 6.1, 6.2, 6.3]) == [false, false, false, false], "what the idle pings map again stays")
        #expect(looks([9, 12, 12.1]) == [false, false, true], "a burst, let go once over")
        pages.released(residentAfter: 2 * mb)
        #expect(looks([6, 6.1, 9.9, 10]) == [false, false, false, false], "growth under the threshold stays")
    }

    /// Letting go lowers the process's resident file pages (this test process's own code, tens of MB,
    /// mapped in by the tests that ran before), and the process goes on running that code and reading
    /// its constants.
    @Test func lettingGoLowersTheResidentFilePages() throws {
        let before = try #require(CleanMappedPages.residentFileBytes())
        CleanMappedPages.release()
        let after = try #require(CleanMappedPages.residentFileBytes())
        #expect(after < before)
        var first = CleanMappedPages(threshold: 1, quiet: Int.max), never = CleanMappedPages(threshold: Int.max, quiet: Int.max)
        let released = first.releaseIfGrown(), releasedBelowThreshold = never.releaseIfGrown()
        #expect(released, "the first quiet look finds the pages grown from none")
        #expect(!releasedBelowThreshold, "below the threshold nothing is let go")
        // The look after a release reads what idling keeps, and lets go of nothing, however much the
        // release's own return mapped again: only growth beyond it counts.
        let afterRelease = first.releaseIfGrown()
        #expect(!afterRelease)
        // While the pages grow look after look (a burst under way), nothing is let go.
        var busy = CleanMappedPages(threshold: 1, quiet: 0)
        let duringBurst = busy.releaseIfGrown()
        #expect(!duringBurst)
        #expect(String(describing: [3, 1, 2].sorted()) == "[1, 2, 3]")
    }
}
