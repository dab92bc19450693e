import Foundation
import GRDB
import Library
import Shared
@testable import Store
import Testing
import TestSupport

/// The counters the triggers keep (SchemaV3) equal a count of the tables after every kind of write the
/// daemon makes, and after migrating a store that already held rows.
@Suite struct CountersTests {
    let dir = TemporaryDirectory()

    /// The counts as the tables give them: what the counters must equal.
    static func recount(_ db: Database, accountId: String) throws -> (LibraryCounts, OutboxCounts) {
        func count(_ sql: String, _ arguments: StatementArguments = []) throws -> Int { try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0 }
        let library = LibraryCounts(
            photos: try count("SELECT count(*) FROM photos"),
            liked: try count("SELECT count(*) FROM likes WHERE account_id = ? AND deleted_at IS NULL", [accountId]),
            edited: try count("SELECT count(DISTINCT photo_id) FROM edits WHERE deleted_at IS NULL"),
            dismissed: try count("SELECT count(*) FROM photos WHERE dismissed_at IS NOT NULL"),
            files: try count("SELECT count(*) FROM photo_files"),
            bytes: Int64(try count("SELECT coalesce(sum(bytes), 0) FROM photo_files")))
        let outbox = OutboxCounts(
            pending: try count("SELECT count(*) FROM outbox WHERE state = 'pending'"),
            inFlight: try count("SELECT count(*) FROM outbox WHERE state = 'in_flight'"),
            rejected: try count("SELECT count(*) FROM outbox WHERE state = 'rejected'"))
        return (library, outbox)
    }

    func expectCountersMatch(_ store: Store, after step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for account in ["u", "v", "nobody"] {
            let (library, outbox) = try store.read { db in try Self.recount(db, accountId: account) }
            let kept = try store.read { db in
                (try CountsQuery.library(db, accountId: account), try CountsQuery.outbox(db, accountId: account))
            }
            #expect(kept.0 == library, "\(step), account \(account)", sourceLocation: sourceLocation)
            #expect(kept.1 == outbox, "\(step), account \(account)", sourceLocation: sourceLocation)
        }
    }

    static func file(_ photoId: String, variant: String = "regular", bytes: Int64, inLibrary: Bool = true) -> PhotoFileStore.File {
        PhotoFileStore.File(
            photoId: photoId, variant: variant, path: "library/\(photoId).\(variant).jpg", inLibrary: inLibrary, bytes: bytes,
            checksum: nil, createdAt: PhotoFixtures.epoch, lastAccessAt: PhotoFixtures.epoch)
    }

    @Test func everyWriteKeepsTheCountersEqualToTheTables() throws {
        let store = try Store(path: dir.file("s.sqlite"))
        let likes = LikeActions(store: store)
        try expectCountersMatch(store, after: "a new store")
        try store.write { db in for id in ["a", "b", "c", "d"] { try PhotoFixtures.photo(id).insert(db) } }
        try expectCountersMatch(store, after: "photos inserted")
        _ = try likes.like(photoId: "unsplash:a", accountId: "u")
        _ = try likes.like(photoId: "unsplash:b", accountId: "u")
        _ = try likes.like(photoId: "unsplash:b", accountId: "v")
        try expectCountersMatch(store, after: "likes")
        _ = try likes.unlike(photoId: "unsplash:b", accountId: "u")
        try expectCountersMatch(store, after: "an unlike (a tombstone, its op replacing the like's)")
        _ = try likes.like(photoId: "unsplash:b", accountId: "u")
        try expectCountersMatch(store, after: "a like again")
        _ = try likes.setDismissed(true, photoId: "unsplash:c")
        _ = try likes.setDismissed(true, photoId: "unsplash:d")
        _ = try likes.setDismissed(false, photoId: "unsplash:d")
        try expectCountersMatch(store, after: "dismissals")
        try store.write { db in
            try PhotoFileStore.record(db, Self.file("unsplash:a", bytes: 1000))
            try PhotoFileStore.record(db, Self.file("unsplash:b", bytes: 2000))
            try PhotoFileStore.record(db, Self.file("unsplash:b", variant: "thumb", bytes: 30, inLibrary: false))
        }
        try expectCountersMatch(store, after: "files recorded")
        try store.write { db in try PhotoFileStore.record(db, Self.file("unsplash:a", bytes: 1500)) }
        try expectCountersMatch(store, after: "a file recorded again, larger")
        try store.write { db in try PhotoFileStore.remove(db, Self.file("unsplash:b", variant: "thumb", bytes: 30)) }
        try expectCountersMatch(store, after: "a file removed")
        let seqs = try store.read { db in try OutboxStore.list(db, rejectedOnly: false).compactMap(\.seq) }
        try store.write { db in try OutboxStore.markInFlight(db, Array(seqs.prefix(2)), now: Date()) }
        try expectCountersMatch(store, after: "ops in flight")
        try store.write { db in
            try OutboxStore.complete(db, [seqs[0]])
            try OutboxStore.reject(db, [seqs[1]], reason: "no", now: Date())
        }
        try expectCountersMatch(store, after: "an op done, one rejected")
        try store.write { db in _ = try OutboxStore.resetInFlight(db) }
        try expectCountersMatch(store, after: "in-flight ops reset")
        // A photo deleted takes its likes and files with it (ON DELETE CASCADE): their triggers fire too.
        try store.write { db in _ = try PhotoRecord.deleteOne(db, key: "unsplash:b") }
        try expectCountersMatch(store, after: "a liked photo with a file deleted")
        // However a later change writes a counted table, a REPLACE deletes through the delete trigger.
        try store.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO photo_files SELECT photo_id, variant, path, in_library, 7, checksum, created_at, last_access_at FROM photo_files")
            try db.execute(sql: "INSERT OR REPLACE INTO likes (account_id, photo_id, liked_at, updated_at, deleted_at) SELECT account_id, photo_id, liked_at, updated_at, NULL FROM likes")
        }
        try expectCountersMatch(store, after: "rows replaced")
    }

    /// A store from before the counters gets them counted from its rows when it migrates.
    @Test func aStoreThatHeldRowsBeforeTheCountersIsCountedWhenItMigrates() throws {
        let path = dir.file("old.sqlite")
        try PhotoFixtures.oldStore(at: path, migratedUpTo: "v2 pull rereads") { db in
            for id in ["a", "b", "c"] { try PhotoFixtures.photo(id, dismissed: id == "c").insert(db) }
            try PhotoFixtures.insertUnstamped(PhotoFixtures.like("unsplash:a", account: "u", at: 1), db)
            try PhotoFixtures.insertUnstamped(PhotoFixtures.like("unsplash:b", account: "u", at: 2, unliked: true), db)
            try PhotoFixtures.insertUnstamped(PhotoFixtures.like("unsplash:b", account: "v", at: 3), db)
            try PhotoFileStore.record(db, Self.file("unsplash:a", bytes: 4096))
        }
        let store = try Store(path: path)
        #expect(try store.appliedMigrations() == Store.knownMigrations)
        let library = try store.read { db in try CountsQuery.library(db, accountId: "u") }
        #expect(library == LibraryCounts(photos: 3, liked: 1, edited: 0, dismissed: 1, files: 1, bytes: 4096))
        try expectCountersMatch(store, after: "the migration")
    }
}
