import CLIText
@testable import Daemon
import Shared
import Testing

/// Which events need the person: each rule, from the subscription's snapshot on.
@Suite struct NotificationRulesTests {
    func rules(signedIn: Bool = true, rejected: Int = 0, held: Int? = nil) -> NotificationRules {
        var start = DaemonState.Values()
        if signedIn { start.account = AccountStatus(state: .signedIn, userId: "u", email: "ana@example.com") }
        start.outbox = OutboxCounts(pending: 0, inFlight: 0, rejected: rejected, duplicates: held)
        return NotificationRules(from: start, dataDirectory: "/home/ana/.local/share/splashd")
    }

    @Test func aSessionTheServerEndedIsNewsOneThePersonEndedIsNot() {
        var asked = rules()
        let signedOut = Event.accountChanged(AccountStatus(state: .signedOut))
        #expect(asked.endsASession(signedOut))
        #expect(asked.notices(for: signedOut, signedOutBecause: nil).isEmpty)
        var ended = rules()
        let notices = ended.notices(for: signedOut, signedOutBecause: .sessionFileCannotBeRead)
        #expect(notices.map(\.kind) == ["signed_out"] && notices[0].action == .notifySignIn)
        #expect(!ended.endsASession(signedOut), "signed out already: no second one")
        var guest = rules(signedIn: false)
        #expect(guest.notices(for: signedOut, signedOutBecause: .sessionFileCannotBeRead).isEmpty)
    }

    @Test func moreRefusedOrHeldThanBeforeIsNewsTheSameIsNot() {
        var rules = rules(rejected: 2, held: 1)
        #expect(rules.notices(for: .outboxChanged(OutboxCounts(pending: 3, inFlight: 0, rejected: 2, duplicates: 1))).isEmpty)
        let more = rules.notices(for: .outboxChanged(OutboxCounts(pending: 0, inFlight: 0, rejected: 5, duplicates: 2)))
        #expect(more.map(\.kind) == ["rejected", "duplicate"] && more[0].summary == .notifyRejectedSummary(3))
        #expect(rules.notices(for: .outboxChanged(OutboxCounts(pending: 0, inFlight: 0, rejected: 1, duplicates: 0))).isEmpty,
                "fewer (retried, kept) is no news")
    }

    @Test func aGooglePickIsNewsOnceWhole() {
        var rules = rules()
        let halfway = ImportProgress(root: "google:s1", total: 10, done: 4, imported: 4, duplicates: 0, failed: 0, current: nil)
        #expect(rules.notices(for: .importProgress(halfway)).isEmpty)
        let folder = ImportProgress(root: "/home/ana/Pictures", total: 3, done: 3, imported: 3, duplicates: 0, failed: 0, current: nil)
        #expect(rules.notices(for: .importProgress(folder)).isEmpty, "a folder the person imports is in front of them")
        let whole = ImportProgress(root: "google:s1", total: 10, done: 10, imported: 7, duplicates: 1, failed: 1, current: nil)
        #expect(rules.notices(for: .importProgress(whole)).map(\.body)
            == [.googlePicksSummary(imported: 7, duplicates: 1, skipped: 1, failed: 1)])
    }

    @Test func aFailedDownloadOnAFullDiskIsNewsOnARoomyOneItIsNot() {
        var rules = rules()
        let failed = Event.imagesChanged(ImagesProgress(photo: "unsplash:a", change: .failed, downloading: 0, waiting: 3, finished: 0, bytes: 0))
        #expect(rules.notices(for: failed, freeBytes: 4 << 30).isEmpty)
        #expect(rules.notices(for: failed, freeBytes: 1 << 20).map(\.body) == [.notifyDiskFullBody(directory: "/home/ana/.local/share/splashd")])
    }
}
