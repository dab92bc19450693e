import Foundation
import GRDB
import Library
import Shared
import Store
@testable import Sync
import Supabase
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
            for n in 0..<3 { try PhotoRecord(source: .unsplash, remoteId: "p\(n)", fetchedAt: Date()).insert(db) }
            try PhotoRecord(source: .unsplash, remoteId: "rich", urls: #"{"regular":"https://x/y.jpg"}"#, fetchedAt: Date()).insert(db)
        }
    }

    /// Row `n` of a page, its action made at second `n` by device "b" unless said otherwise.
    static func row(
        _ n: Int, photo: String, likedAt: String = "2026-01-01T00:00:00.123456+00:00", deleted: String? = nil,
        actedAt: String? = nil, actedBy: String = "b"
    ) -> ServerLikeRow {
        ServerLikeRow(
            id: String(format: "00000000-0000-0000-0000-%012d", n), photo_id: photo, liked_at: likedAt,
            updated_at: "2026-01-01T00:00:0\(n)+00:00", deleted_at: deleted, acted_at: actedAt ?? "2026-01-01T00:00:0\(n)+00:00",
            acted_by: actedBy)
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

    /// The echo of a like made here: the stamp queued in its op comes back from the server as Postgres
    /// prints it, and the store, which holds the same like, writes nothing — whatever the part of a
    /// millisecond the like was made at.
    @Test(arguments: [0.0, 0.0004, 0.0005, 0.0009996, 0.1234567, 0.9999])
    func theEchoOfALikeMadeHereWritesNothing(fraction: Double) throws {
        let madeAt = Date(timeIntervalSince1970: 1_780_000_000 + fraction)
        _ = try LikeActions(store: store).like(photoId: "unsplash:p0", accountId: "a", now: madeAt)
        let op = try #require(try store.read { db in try OutboxStore.list(db, rejectedOnly: false) }.first)
        let rows = try store.read { db in try LikePushRows.fetch(db, seqs: [try #require(op.seq)]) }
        guard case .rows(let sent) = rows[try #require(op.seq)] else { Issue.record("unreadable: \(rows)"); return }
        let like = try #require(try JSONSerialization.jsonObject(with: Data(sent.like.utf8)) as? [String: Any])
        try store.write { db in try OutboxStore.complete(db, [try #require(op.seq)]) }
        let before = try likes()
        // PostgREST answers with the values Postgres keeps, in its own spelling of the offset.
        let postgres = { (text: Any?) in (text as? String)?.replacingOccurrences(of: "Z", with: "+00:00") }
        let echo = Self.row(
            1, photo: "unsplash:p0", likedAt: try #require(postgres(like["liked_at"])), actedAt: try #require(postgres(like["acted_at"])),
            actedBy: try #require(like["acted_by"] as? String))
        let changes = try store.write { db in try LikesPuller.apply([echo], photos: [], accountId: "a", db: db) }
        #expect(changes.isEmpty)
        #expect(try likes() == before, "the like was written again for \(sent.like): \(before)")
    }

    /// Two devices' changes to one like at the same millisecond: the greater device id wins, so two
    /// replicas that read them in opposite orders end alike; an earlier stamp never replaces a later one.
    @Test func replicasDecideAlikeWhateverTheOrderTheyReadIn() throws {
        let other = try Store(path: dir.file("other.sqlite"))
        try other.write { db in try PhotoRecord(source: .unsplash, remoteId: "p0", fetchedAt: Date()).insert(db) }
        let at = "2026-01-01T10:00:00.123+00:00"
        let fromA = Self.row(1, photo: "unsplash:p0", actedAt: at, actedBy: "aaaa")
        let fromZ = Self.row(2, photo: "unsplash:p0", deleted: at, actedAt: at, actedBy: "zzzz")
        let earlier = Self.row(3, photo: "unsplash:p0", actedAt: "2026-01-01T10:00:00.122+00:00", actedBy: "zzzz")
        for (store, order) in [(store, [fromA, fromZ, earlier]), (other, [fromZ, fromA, earlier])] {
            for row in order { _ = try store.write { db in try LikesPuller.apply([row], photos: [], accountId: "a", db: db) } }
        }
        let ours = try #require(try store.read { db in try LikeRecord.find(db, accountId: "a", photoId: "unsplash:p0") })
        let theirs = try #require(try other.read { db in try LikeRecord.find(db, accountId: "a", photoId: "unsplash:p0") })
        #expect(ours.deletedAt != nil && ours.actedBy == "zzzz", "\(ours)")
        #expect(theirs.deletedAt == ours.deletedAt && theirs.stamp == ours.stamp)
    }

    /// A later row from another device supersedes this device's like still waiting to be sent: it would
    /// lose at the server, and the store takes the later word at once.
    @Test func aLaterRowSupersedesAnOpStillWaiting() throws {
        _ = try LikeActions(store: store).like(photoId: "unsplash:p1", accountId: "a", now: Date(timeIntervalSince1970: 1_780_000_000))
        let later = Self.row(1, photo: "unsplash:p1", deleted: "2026-05-28T20:26:41+00:00", actedAt: "2026-05-28T20:26:41+00:00")
        let changes = try store.write { db in try LikesPuller.apply([later], photos: [], accountId: "a", db: db) }
        #expect(changes.map(\.change) == [.unliked])
        #expect(try store.read { db in try OutboxStore.list(db, rejectedOnly: false) }.isEmpty)
        // An earlier row changes nothing and waits to be read again.
        _ = try LikeActions(store: store).like(photoId: "unsplash:p2", accountId: "a", now: Date(timeIntervalSince1970: 1_780_000_100))
        let earlier = Self.row(2, photo: "unsplash:p2", deleted: "2026-05-28T20:26:41+00:00", actedAt: "2026-05-28T20:26:41+00:00")
        #expect(try store.write { db in try LikesPuller.apply([earlier], photos: [], accountId: "a", db: db) }.isEmpty)
        #expect(try store.read { db in try OutboxStore.list(db, rejectedOnly: false) }.count == 1)
        #expect(try store.read { db in try PullRereads.ready(db, accountId: "a", table: "likes", entity: LikeActions.entity, limit: 5) }.isEmpty)
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
