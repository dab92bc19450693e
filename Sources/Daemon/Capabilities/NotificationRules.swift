import CLIText
import Shared

/// Which events need the person, as notifications: pure, so each rule is tested on its own
/// (`NotificationCapability` feeds it the events, the sign-out's reason and the disk's room).
struct NotificationRules {
    struct Notice: Equatable {
        var kind: String
        var summary: Message
        var body: Message
        var action: Message
    }

    private(set) var signedIn: Bool
    private var rejected: Int
    private var held: Int
    /// Where the library is: a full disk there is news.
    let dataDirectory: String

    /// Starting from the values the event subscription's snapshot had.
    init(from start: DaemonState.Values, dataDirectory: String) {
        self.dataDirectory = dataDirectory
        signedIn = start.account.state != .signedOut
        rejected = start.outbox.rejected
        held = start.outbox.duplicates ?? 0
    }

    /// Whether `event` ends a session (asked for the server's reason before `notices`).
    func endsASession(_ event: Event) -> Bool {
        if case .accountChanged(let status) = event { return signedIn && status.state == .signedOut }
        return false
    }

    /// What `event` needs the person to know. `signedOutBecause`: why the session ended, nil when the
    /// person asked; `freeBytes`: the room left where the library is, when a download failed.
    mutating func notices(for event: Event, signedOutBecause: DaemonText? = nil, freeBytes: UInt64? = nil) -> [Notice] {
        switch event {
        case .accountChanged(let status):
            let ended = endsASession(event)
            signedIn = status.state != .signedOut
            guard ended, let reason = signedOutBecause else { return [] }
            return [Notice(kind: "signed_out", summary: .notifySignedOutSummary, body: .notifySignedOutBody(reason: reason.text()), action: .notifySignIn)]
        case .outboxChanged(let counts):
            var notices: [Notice] = []
            if counts.rejected > rejected {
                notices.append(Notice(
                    kind: "rejected", summary: .notifyRejectedSummary(counts.rejected - rejected), body: .notifyRejectedBody, action: .notifyShow))
            }
            if (counts.duplicates ?? 0) > held {
                notices.append(Notice(kind: "duplicate", summary: .notifyDuplicateSummary, body: .notifyDuplicateBody, action: .notifyShow))
            }
            (rejected, held) = (counts.rejected, counts.duplicates ?? 0)
            return notices
        case .importProgress(let progress) where progress.root.hasPrefix("google:") && progress.total > 0 && progress.done == progress.total:
            let skipped = max(0, progress.total - progress.imported - progress.duplicates - progress.failed)
            return [Notice(
                kind: "google_pick", summary: .notifyGooglePickSummary,
                body: .googlePicksSummary(imported: progress.imported, duplicates: progress.duplicates, skipped: skipped, failed: progress.failed),
                action: .notifyShow)]
        case .imagesChanged(let images) where images.change == .failed:
            guard let freeBytes, freeBytes < Self.fullBelow else { return [] }
            return [Notice(kind: "disk_full", summary: .notifyDiskFullSummary, body: .notifyDiskFullBody(directory: dataDirectory), action: .notifyShow)]
        default:
            return []
        }
    }

    /// Less room than this where the library is, with a download failing, is a full disk.
    static let fullBelow: UInt64 = 16 << 20

    /// Google ended the Google Photos connection (the person did not disconnect).
    static func googleEnded(because reason: String) -> Notice {
        Notice(kind: "google_ended", summary: .notifyGoogleEndedSummary, body: .notifyGoogleEndedBody(reason: reason), action: .notifyShow)
    }
}
