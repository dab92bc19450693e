import Library
import Shared

extension DaemonState {
    /// Each photo's change on the bus, for every client.
    var photosChanged: @Sendable ([PhotoChange]) -> Void {
        { [bus] changes in for change in changes { bus.publish(.photoChanged(change)) } }
    }

    /// The domain's announcements as the daemon hears them: each photo's change on the bus; new work in
    /// the outbox rings `outboxQueued` (the push engine).
    func announcements(outboxQueued: @escaping @Sendable () -> Void) -> Announcements {
        Announcements(photosChanged: photosChanged, outboxQueued: outboxQueued)
    }
}
