import Foundation
import GRDB
import Library
import Shared
import Store
@testable import Sync
import Testing
import TestSupport

/// Applying a pulled page of likes (the echo of this device's pushes among them): a row the store already
/// agrees with writes nothing, a different one is applied, and the cursor ends past the page.
@Suite struct PulledPageTests {
    let dir = TemporaryDirectory()
    let store: Store

    init() throws {
        store = try Store(path: dir.file("s.sqlite"))
        try store.write { db in
            for n in 0..<3 { try PhotoRecord(source: "unsplash", remoteId: "p\(n)", fetchedAt: Date()).insert(db) }
            try PhotoRecord(source: "unsplash", remoteId: "rich", urls: #"{"regular":"https://x/y.jpg"}"#, fetchedAt: Date()).insert(db)
        }
    }

    static func row(_ n: Int, photo: String, likedAt: String = "2026-01-01T00:00:00.123456+00:00", deleted: String? = nil) -> LikesPuller.ServerLike {
        LikesPuller.ServerLike(
            id: String(format: "00000000-0000-0000-0000-%012d", n), photo_id: photo, liked_at: likedAt,
            updated_at: "2026-01-01T00:00:0\(n)+00:00", deleted_at: deleted)
    }

    func likes() throws -> [LikeRecord] {
        try store.read { db in try LikeRecord.order(Column("photo_id")).fetchAll(db) }
    }

    @Test func aRowTheStoreAgreesWithWritesNothing() throws {
        let page = [Self.row(1, photo: "unsplash:p0"), Self.row(2, photo: "unsplash:p1")]
        let first = try store.write { db in try LikesPuller.apply(page, photos: [], accountId: "a", db: db) }
        #expect(first.map(\.id) == ["unsplash:p0", "unsplash:p1"])
        let stored = try likes()
        #expect(stored.count == 2)

        let again = try store.write { db in try LikesPuller.apply(page, photos: [], accountId: "a", db: db) }
        #expect(again.isEmpty, "nothing changed")
        #expect(try likes() == stored, "not even the rows' updated_at")

        let unliked = [Self.row(3, photo: "unsplash:p1", deleted: "2026-01-02T00:00:00+00:00")]
        let third = try store.write { db in try LikesPuller.apply(unliked, photos: [], accountId: "a", db: db) }
        #expect(third.map(\.change) == [.unliked])
        #expect(try likes().last?.deletedAt != nil)
        let cursor = try store.read { db in try SyncCursor.load(db, accountId: "a", table: "likes") }
        #expect(cursor.lastID == unliked[0].id)
    }

    /// The echo of a like made here: the time queued in its op (milliseconds) comes back from the server as
    /// Postgres prints it, and the store, which holds the same like, writes nothing — whatever the part of a
    /// millisecond the like was made at, each rounding of the way (the store's date, the payload's) included.
    @Test(arguments: [0.0, 0.0004, 0.0005, 0.0009996, 0.1234567, 0.9999])
    func theEchoOfALikeMadeHereWritesNothing(fraction: Double) throws {
        let madeAt = Date(timeIntervalSince1970: 1_780_000_000 + fraction)
        _ = try LikeActions(store: store).like(photoId: "unsplash:p0", accountId: "a", now: madeAt)
        let op = try #require(try store.read { db in try OutboxStore.list(db, rejectedOnly: false) }.first)
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(op.payload.utf8)) as? [String: Any])
        let queued = try #require(payload["likedAt"] as? String)
        try store.write { db in try OutboxStore.complete(db, [try #require(op.seq)]) }
        let before = try likes()
        // PostgREST answers with the value Postgres keeps, in its own spelling of the offset.
        let echo = Self.row(1, photo: "unsplash:p0", likedAt: queued.replacingOccurrences(of: "Z", with: "+00:00"))
        let changes = try store.write { db in try LikesPuller.apply([echo], photos: [], accountId: "a", fetchStarted: madeAt.addingTimeInterval(10), db: db) }
        #expect(changes.isEmpty)
        #expect(try likes() == before, "the like was written again for \(queued): \(before)")
    }

    @Test func aPageMovesTheCursorPastItsLastRow() throws {
        let page = (1...3).map { Self.row($0, photo: "unsplash:p\($0 - 1)") }
        _ = try store.write { db in try LikesPuller.apply(page, photos: [], accountId: "a", db: db) }
        let cursor = try store.read { db in try SyncCursor.load(db, accountId: "a", table: "likes") }
        #expect(cursor.lastID == page[2].id && cursor.updatedAt == page[2].updated_at)
    }

    @Test func onlyPhotosWithTheirMetadataCountAsKnown() throws {
        let known = try store.read { db in
            try PulledRows.photosWithMetadata(db, ids: ["unsplash:rich", "unsplash:p0", "unsplash:nowhere"])
        }
        #expect(known == ["unsplash:rich"])
    }
}
