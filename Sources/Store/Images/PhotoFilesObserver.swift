import GRDB
import Synchronization

/// Calls `changed` after every commit that changed a row of `photo_files`, on the writer's queue before
/// its next write: whatever a reader kept of a photo's files is stale from that commit on. A photo
/// removed takes its rows with it (`ON DELETE CASCADE`, which SQLite reports as their deletes). One
/// change is enough to know; the rest of the transaction goes unwatched.
final class PhotoFilesObserver: TransactionObserver, Sendable {
    private let changed: @Sendable () -> Void
    /// Set by a change, read and cleared at the commit; only the writer's queue touches it.
    private let pending = Mutex(false)

    init(changed: @escaping @Sendable () -> Void) {
        self.changed = changed
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        eventKind.tableName == "photo_files"
    }

    func databaseDidChange() {
        pending.withLock { $0 = true }
    }

    func databaseDidChange(with event: DatabaseEvent) {
        pending.withLock { $0 = true }
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidCommit(_ db: Database) {
        guard pending.withLock({ was in defer { was = false }; return was }) else { return }
        changed()
    }

    func databaseDidRollback(_ db: Database) {
        pending.withLock { $0 = false }
    }
}
