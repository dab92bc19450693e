import Foundation
import GRDB
import Shared
@testable import Store
import Testing
import TestSupport

@Suite struct StoreMigrationTests {
    @Test func freshStoreAppliesEveryMigrationInWALMode() throws {
        let dir = TemporaryDirectory()
        let store = try Store(path: dir.file("s.sqlite"))
        #expect(try store.appliedMigrations() == Store.knownMigrations)
        let mode = try store.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        let tables = try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
        for table in ["photos", "photo_files", "likes", "edits", "searches", "search_results", "feeds", "accounts",
                      "cached_users", "cached_values", "outbox", "sync_cursors", "photos_fts"] {
            #expect(tables.contains(table), "missing table \(table)")
        }
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func reopeningKeepsDataAndMigratesNothingTwice() throws {
        let dir = TemporaryDirectory()
        do {
            let store = try Store(path: dir.file("s.sqlite"))
            try store.write { db in try PhotoFixtures.photo("a").insert(db) }
        }
        let again = try Store(path: dir.file("s.sqlite"))
        #expect(try again.appliedMigrations() == Store.knownMigrations)
        #expect(try again.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM photos") } == 1)
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        let dir = TemporaryDirectory()
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: dir.file("s.sqlite")))
        #expect {
            _ = try Store(path: dir.file("s.sqlite"))
        } throws: { error in
            guard case StoreError.open(_, let code, _) = error else { return false }
            return code == 26  // SQLITE_NOTADB
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("s.sqlite"))) == garbage)
    }

    @Test func aStoreFromANewerSplashdIsRefused() throws {
        let dir = TemporaryDirectory()
        do {
            let store = try Store(path: dir.file("s.sqlite"))
            try store.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99 from the future')") }
        }
        #expect(throws: StoreError.newerSchema(path: dir.file("s.sqlite"))) { try Store(path: dir.file("s.sqlite")) }
    }

    /// v5 separates asking for a search from fetching it: a v4 store's searches keep their history
    /// order (asked when last run); asking again moves one to the top without making its results newer.
    @Test func searchesKeepTheirHistoryThroughV5() throws {
        let dir = TemporaryDirectory()
        let epoch = Date(timeIntervalSince1970: 1_800_000_000)
        try PhotoFixtures.oldStore(at: dir.file("s.sqlite"), migratedUpTo: "v4 list indexes") { db in
            for (n, query) in ["older", "newer"].enumerated() {
                try db.execute(sql: """
                    INSERT INTO searches (source, query, params_key, total, created_at, last_run_at) VALUES ('unsplash', ?, ?, 1, ?, ?)
                    """, arguments: [query, query, epoch, epoch.addingTimeInterval(Double(n))])
            }
        }
        let store = try Store(path: dir.file("s.sqlite"))
        #expect(try store.read { db in try SearchPages.recent(db, source: .unsplash, limit: 10) }.map(\.key) == ["newer", "older"])
        let asked = epoch.addingTimeInterval(60)
        try store.write { db in try SearchPages.markAsked(db, source: .unsplash, key: "older", now: asked) }
        let recent = try store.read { db in try SearchPages.recent(db, source: .unsplash, limit: 10) }
        #expect(recent.map(\.key) == ["older", "newer"] && recent.first?.lastRunAt == asked)
        let fetched = try store.read { db in try Date.fetchOne(db, sql: "SELECT last_run_at FROM searches WHERE query = 'older'") }
        #expect(fetched == epoch, "asking again does not make the kept results newer")
    }
}
