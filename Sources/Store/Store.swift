import Foundation
import GRDB
import Shared

/// The local store: the single source of truth. One SQLite database in WAL mode through a GRDB
/// `DatabasePool` (concurrent readers, one writer), migrated on open.
public final class Store: Sendable {
    public let path: String
    /// This device's id (`DeviceRows.id`), which stamps its actions and marks its writes on the server:
    /// made once, when the store was first created, and never changed after.
    public let deviceId: String
    let pool: DatabasePool

    /// Opens (creating if needed) the database at `path` and runs pending migrations.
    /// A file that is not a database, or a schema from a newer splashd, fails with `StoreError`.
    public init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        configuration.label = "splashd.store"
        // Readers never block the writer and the writer never blocks readers (WAL); keep a few readers.
        configuration.maximumReaderCount = 4
        configuration.prepareDatabase { db in
            // No memory map of the file: every page a query touched through it stays in the daemon's
            // resident memory (VmRSS, what top and systemctl status show a person): 206 of 214 MB idle
            // at 100,000 photos. Each connection keeps a small page cache instead (2 MiB: the pages an
            // indexed query of the library touches; the kernel's page cache holds the rest).
            try db.execute(sql: "PRAGMA mmap_size = 0")
            try db.execute(sql: "PRAGMA cache_size = -2048")
            // A row a REPLACE removes fires its delete trigger, as any deletion does: the counters of
            // SchemaV3 stay right whatever statement a later change writes.
            try db.execute(sql: "PRAGMA recursive_triggers = ON")
            // A colour's bucket (ColorBucket), for the statements that write photos straight from the
            // server's answers (PulledRows.fillBarePhotos).
            db.add(function: DatabaseFunction("color_bucket", argumentCount: 1, pure: true) { values in
                String.fromDatabaseValue(values[0]).flatMap { ColorBucket(hex: $0)?.rawValue }
            })
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // FULL: the WAL is synced at every commit, so what the daemon acknowledged (a like, an edit,
            // the pull's cursor with the rows it covers) survives a power cut, not only a kill. Set on
            // the writer once GRDB has opened it: its WAL set-up sets NORMAL after `prepareDatabase`,
            // and NORMAL lost acknowledged likes and whole searches to a power cut (docs/reliability.md).
            // SQLite syncs the directory with the WAL's first sync, which makes the new files' names
            // durable too.
            //
            // The writer's temporary files in memory: each statement of a transaction that may have to
            // undo itself alone (a trigger's, an FTS5 update's) keeps the pages it changes in a
            // statement journal, which SQLite writes to a file in /var/tmp past 64 KiB, a pwrite for
            // each page and each page number: 24,000 a second while a pull applied its pages, more
            // system calls than everything else the daemon did (strace, bench scenario 15). A journal
            // lives only as long as its statement, and none of it is needed after a crash.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
            }
            try Migrations.migrator.migrate(pool)
        } catch let error as DatabaseError {
            throw StoreError.open(path: path, code: error.resultCode.rawValue, message: error.message ?? "\(error)")
        }
        if try pool.read({ db in try Migrations.migrator.hasBeenSuperseded(db) }) {
            throw StoreError.newerSchema(path: path)
        }
        do {
            deviceId = try pool.read { db in try DeviceRows.id(db) }
        } catch let error as DatabaseError {
            throw StoreError.open(path: path, code: error.resultCode.rawValue, message: error.message ?? "\(error)")
        }
    }

    /// `PRAGMA integrity_check`: "ok" or the problems SQLite found.
    public func integrityCheck() throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// Whether a reader gets an answer from SQLite: the watchdog's check that the store is not wedged.
    public func answers() -> Bool {
        (try? pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }) == 1
    }

    /// Copies what the WAL holds into the database file, as far as no reader needs it (a passive
    /// checkpoint: it waits for no one). Before a suspend: a machine that never wakes (its battery
    /// ran out) starts again from a short WAL. Every commit is already durable (`synchronous = FULL`).
    public func checkpoint() throws {
        try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.passive) }
    }

    /// Lets go of the memory SQLite holds for speed: the page caches and prepared statements of every
    /// connection, and the readers themselves (opened again by the next read). Asynchronous: each
    /// connection lets go once its current work is done. After a burst of work (a pull, a page of
    /// photos, a push) the caches held 6 MB of the idle daemon's anonymous memory at 100,000
    /// photos.
    public func releaseMemory() {
        pool.releaseMemoryEventually()
    }

    /// Calls `counted` with the library's and the outbox's counters after every commit that changed what
    /// they count, on the writer's queue before its next write, for as long as the store is open
    /// (`CountsObserver`). `accountId` names whose likes count as liked, asked at each commit.
    public func observeCounts(
        accountId: @escaping @Sendable () -> String,
        _ counted: @escaping @Sendable (Result<(library: LibraryCounts, outbox: OutboxCounts), any Error>) -> Void
    ) {
        pool.add(transactionObserver: CountsObserver(accountId: accountId, counted: counted), extent: .databaseLifetime)
    }

    /// Calls `changed` after every commit that changed a photo's files (`PhotoFilesObserver`), for as
    /// long as the store is open.
    public func observePhotoFiles(_ changed: @escaping @Sendable () -> Void) {
        pool.add(transactionObserver: PhotoFilesObserver(changed: changed), extent: .databaseLifetime)
    }

    /// Calls `moved` after every commit that moved a file between the library and the cache
    /// (`PhotoFilesObserver`, watching `.moves`), for as long as the store is open.
    public func observeFileMoves(_ moved: @escaping @Sendable () -> Void) {
        pool.add(transactionObserver: PhotoFilesObserver(watching: .moves, changed: moved), extent: .databaseLifetime)
    }

    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
        try pool.read(body)
    }

    /// One statement's read, outside a transaction: SQLite reads a single statement from one snapshot
    /// of its own, and the transaction `read` wraps around its body (BEGIN, COMMIT, and GRDB's
    /// read-only guard each side) would cost the gallery more than the query itself, which it asks for
    /// every picture a grid shows.
    public func readOneStatement<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
        try pool.unsafeRead(body)
    }

    public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T {
        try pool.write(body)
    }
}

public enum StoreError: Error, CustomStringConvertible, Equatable {
    case open(path: String, code: Int32, message: String)
    case newerSchema(path: String)

    public var description: String {
        switch self {
        case .open(let path, let code, let message):
            "cannot open the store at \(path): \(message) (SQLite code \(code))"
        case .newerSchema(let path):
            "the store at \(path) was written by a newer splashd; refusing to touch it"
        }
    }
}
