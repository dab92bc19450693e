import Library
import Shared

extension DaemonState {
    /// The domain's announcements as the daemon hears them: each photo's change on the bus, for every
    /// client; new work in the outbox rings `outboxQueued` (the push engine).
    func announcements(outboxQueued: @escaping @Sendable () -> Void) -> Announcements {
        Announcements(
            photosChanged: { [bus] changes in for change in changes { bus.publish(.photoChanged(change)) } },
            outboxQueued: outboxQueued)
    }
}
