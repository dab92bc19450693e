import GRDB
import Synchronization

/// Calls `changed` after every commit that changed a row of `photo_files` (or, `watching: .moves`, moved
/// a file between the library and the cache), on the writer's queue before its next write: whatever a
/// reader kept of a photo's files is stale from that commit on. A photo removed takes its rows with it
/// (`ON DELETE CASCADE`, which SQLite reports as their deletes). One change is enough to know; the rest
/// of the transaction goes unwatched.
final class PhotoFilesObserver: TransactionObserver, Sendable {
    enum Watched: Sendable {
        /// Any row written or removed.
        case anyChange
        /// A row's `in_library` set: a file moved between the library and the cache (or a download's row
        /// written over), not a thumbnail arriving in the cache nor a file looked at.
        case moves
    }

    private let watching: Watched
    private let changed: @Sendable () -> Void
    /// Set by a change, read and cleared at the commit; only the writer's queue touches it.
    private let pending = Mutex(false)

    init(watching: Watched = .anyChange, changed: @escaping @Sendable () -> Void) {
        self.watching = watching
        self.changed = changed
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        guard eventKind.tableName == "photo_files" else { return false }
        switch (watching, eventKind) {
        case (.anyChange, _): return true
        case (.moves, .update(_, let columns)): return columns.contains("in_library")
        case (.moves, _): return false
        }
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
