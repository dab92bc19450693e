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

    /// After the store lets go of its caches and readers, it reads and writes as before, with the
    /// connection's settings (a reader opened again is prepared again).
    @Test func theStoreWorksOnAfterLettingGoOfItsMemory() async throws {
        let dir = TemporaryDirectory()
        let store = try Store(path: dir.file("s.sqlite"))
        try store.write { db in try PhotoFixtures.photo("a").insert(db) }
        _ = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM photos") }
        store.releaseMemory()
        try store.write { db in try PhotoFixtures.photo("b").insert(db) }
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM photos") } == 2)
        #expect(try store.read { db in try Int.fetchOne(db, sql: "PRAGMA mmap_size") } == 0)
        #expect(store.answers())
    }

    /// What a commit acknowledges survives a power cut: the connection that commits syncs the WAL at
    /// every commit (FULL, 2), whatever GRDB's WAL set-up chose, after a release of memory too.
    @Test func theWriterSyncsEveryCommit() throws {
        let dir = TemporaryDirectory()
        let store = try Store(path: dir.file("s.sqlite"))
        #expect(try store.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
        store.releaseMemory()
        #expect(try store.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 2)
        #expect(try store.write { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
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

    /// v10 rebuilds the full-text index with prefixes of two to four letters: a v9 store's photos are
    /// found as before, by words and by what a person has typed so far, and photos added after are too.
    @Test func theFullTextIndexIsRebuiltForTyping() throws {
        let dir = TemporaryDirectory()
        try PhotoFixtures.oldStore(at: dir.file("s.sqlite"), migratedUpTo: "v9 action stamps and the device") { db in
            for n in 0..<30 {
                try db.execute(sql: """
                    INSERT INTO photos (id, source, remote_id, title, tags, fetched_at) VALUES (?, 'unsplash', ?, ?, ?, CURRENT_TIMESTAMP)
                    """, arguments: ["unsplash:p\(n)", "p\(n)", n == 7 ? "Lakeside at sunset" : "photo \(n)", n % 2 == 0 ? "sunrise" : "forest"])
            }
        }
        let store = try Store(path: dir.file("s.sqlite"))
        #expect(try store.appliedMigrations().last == "v10 full text as a person types")
        let queue = try DatabaseQueue(path: dir.file("s.sqlite"))
        func found(_ text: String) throws -> [String] {
            try queue.read { db in
                try String.fetchAll(db, sql: """
                    SELECT p.id FROM photos_fts JOIN photos p ON p.rowid = photos_fts.rowid WHERE photos_fts MATCH ? ORDER BY p.rowid
                    """, arguments: [PhotoQuery.ftsMatch(text)!])
            }
        }
        #expect(try found("lakx su") == [])
        #expect(try found("lake su") == ["unsplash:p7"])
        #expect(try found("su").count == 16, "sunset once, sunrise on the fifteen even ones")
        #expect(try found("fo") == (0..<30).filter { $0 % 2 == 1 }.map { "unsplash:p\($0)" })
        let definition = try queue.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE name = 'photos_fts'") }
        #expect(definition?.contains("prefix='2 3 4'") == true)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO photos (id, source, remote_id, title, fetched_at) VALUES ('unsplash:new', 'unsplash', 'new', 'Sunflower field', CURRENT_TIMESTAMP)")
        }
        #expect(try found("sunf") == ["unsplash:new"], "the triggers keep the new index")
        // FTS5 checks the index against its content table, and throws if they differ.
        try queue.write { db in try db.execute(sql: "INSERT INTO photos_fts (photos_fts, rank) VALUES ('integrity-check', 1)") }
    }

    /// v7 rebuilds photos to accept `google`: a v6 store's photos keep their rows, rowids, full-text
    /// index, counters, files and likes; `google` is accepted and other sources still refused.
    @Test func photosSurviveTheRebuildThatAcceptsGoogle() throws {
        let dir = TemporaryDirectory()
        try PhotoFixtures.oldStore(at: dir.file("s.sqlite"), migratedUpTo: "v6 like checks for near-duplicates") { db in
            for n in 0..<50 {
                try db.execute(sql: """
                    INSERT INTO photos (id, source, remote_id, title, fetched_at) VALUES (?, 'unsplash', ?, ?, CURRENT_TIMESTAMP)
                    """, arguments: ["unsplash:p\(n)", "p\(n)", n == 7 ? "misty lighthouse" : "photo \(n)"])
            }
            try db.execute(sql: "INSERT INTO likes (account_id, photo_id, liked_at, updated_at) VALUES ('a', 'unsplash:p7', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")
        }
        let before = try DatabaseQueue(path: dir.file("s.sqlite")).read { db in
            try Row.fetchAll(db, sql: "SELECT rowid, * FROM photos ORDER BY rowid").map { $0.description }
        }
        let store = try Store(path: dir.file("s.sqlite"))
        let queue = try DatabaseQueue(path: dir.file("s.sqlite"))
        try queue.read { db in
            let after = try Row.fetchAll(db, sql: "SELECT rowid, * FROM photos ORDER BY rowid").map { $0.description }
            let found = try String.fetchAll(db, sql: "SELECT p.id FROM photos_fts JOIN photos p ON p.rowid = photos_fts.rowid WHERE photos_fts MATCH 'lighthouse'")
            let counted = try Int.fetchOne(db, sql: "SELECT value FROM counters WHERE name = 'photos'")
            let likes = try Int.fetchOne(db, sql: "SELECT count(*) FROM likes")
            let broken = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            #expect(after == before && found == ["unsplash:p7"] && counted == 50 && likes == 1 && broken.isEmpty)
        }
        try queue.write { db in
            try db.execute(sql: "INSERT INTO photos (id, source, remote_id, title, fetched_at) VALUES ('google:AF1', 'google', 'AF1', 'picked', CURRENT_TIMESTAMP)")
            let counted = try Int.fetchOne(db, sql: "SELECT value FROM counters WHERE name = 'photos'")
            let found = try String.fetchAll(db, sql: "SELECT p.id FROM photos_fts JOIN photos p ON p.rowid = photos_fts.rowid WHERE photos_fts MATCH 'picked'")
            #expect(counted == 51 && found == ["google:AF1"], "the counting and full-text triggers were made again")
            var refused = false
            do {
                try db.execute(sql: "INSERT INTO photos (id, source, remote_id, fetched_at) VALUES ('flickr:x', 'flickr', 'x', CURRENT_TIMESTAMP)")
            } catch {
                refused = true
            }
            #expect(refused, "other sources are still refused")
        }
        _ = store
    }
}
