import GRDB
import Shared
import Synchronization

/// Reads the counters again after every transaction that changed a table they count, on the writer's
/// queue, right after the commit and before the next write: what `daemon.status` shows moves with the
/// store, whoever wrote, with no caller having to remember to ask (a source's answer and a thumbnail
/// each left status a refresh behind until a caller was added).
///
/// The counters themselves live in WITHOUT ROWID tables, which SQLite's update hook (and so GRDB) never
/// reports: the tables whose triggers keep them are watched instead, with the edits and the held likes,
/// which are counted directly. One change is enough to know: the rest of the transaction goes unwatched.
final class CountsObserver: TransactionObserver, Sendable {
    static let tables: Set<String> = ["photos", "photo_files", "likes", "outbox", "edits", "like_checks"]

    private let accountId: @Sendable () -> String
    private let counted: @Sendable (Result<(library: LibraryCounts, outbox: OutboxCounts), any Error>) -> Void
    /// Set by a change, read and cleared at the commit; only the writer's queue touches it.
    private let changed = Mutex(false)

    init(accountId: @escaping @Sendable () -> String,
         counted: @escaping @Sendable (Result<(library: LibraryCounts, outbox: OutboxCounts), any Error>) -> Void) {
        self.accountId = accountId
        self.counted = counted
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        Self.tables.contains(eventKind.tableName)
    }

    func databaseDidChange() {
        changed.withLock { $0 = true }
    }

    func databaseDidChange(with event: DatabaseEvent) {
        changed.withLock { $0 = true }
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidCommit(_ db: Database) {
        guard changed.withLock({ was in defer { was = false }; return was }) else { return }
        let account = accountId()
        counted(Result { try CountsQuery.all(db, accountId: account) })
    }

    func databaseDidRollback(_ db: Database) {
        changed.withLock { $0 = false }
    }
}
