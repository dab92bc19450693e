import Foundation
import GRDB
import Library
import Shared
import Store
import Testing
import TestSupport

/// The guest: likes and edits made signed out are kept on this machine and never queued; an adoption
/// brings them into an account, merged with what it has, in batches that a crash cannot split.
@Suite struct GuestAdoptionTests {
    let dir = TemporaryDirectory()
    let store: Store
    let likes: LikeActions
    let edits: EditActions
    let guest = GuestRows.accountId

    init() throws {
        store = try Store(path: dir.file("s.sqlite"))
        likes = LikeActions(store: store)
        edits = EditActions(store: store)
        try store.write { db in
            for n in 0..<1_200 { try PhotoRecord(source: .unsplash, remoteId: "p\(n)", fetchedAt: Date()).insert(db) }
        }
    }

    func ops(_ account: String) throws -> [OutboxEntry] {
        try store.read { db in try OutboxStore.list(db, rejectedOnly: false) }.filter { $0.accountId == account }
    }

    func liked(_ account: String) throws -> [String: Date] {
        let rows = try store.read { db in
            try LikeRecord.fetchAll(db, sql: "SELECT * FROM likes WHERE account_id = ? AND deleted_at IS NULL", arguments: [account])
        }
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.photoId, $0.likedAt) })
    }

    func recordEdit(_ id: String, photo: String, account: String) throws {
        _ = try edits.record(
            editId: id, photoId: photo, accountId: account, pipeline: [FilterStep(filter: "sepia")], path: "edits/\(id).jpg",
            bytes: 10, checksum: "c")
    }

    @Test func theGuestsLikesAndEditsAreKeptAndNeverQueued() throws {
        #expect(try likes.like(photoId: "unsplash:p0", accountId: guest) == .changed(queued: false))
        #expect(try likes.like(photoId: "unsplash:p1", accountId: guest) == .changed(queued: false))
        #expect(try likes.unlike(photoId: "unsplash:p1", accountId: guest) == .changed(queued: false))
        try recordEdit("e1", photo: "unsplash:p2", account: guest)
        #expect(try ops(guest).isEmpty && ops("a").isEmpty)
        #expect(try GuestAdoption(store: store).counts() == GuestCounts(likes: 1, edits: 1))
        #expect(try edits.remove(editId: "e1", accountId: guest) == .removed(queued: false, path: "edits/e1.jpg", uploadInFlight: false))
        #expect(try ops(guest).isEmpty)
    }

    /// A like the account has is merged (nothing queued for it); a like it took back is liked again
    /// (the person chose to bring theirs in); the guest's own unlikes bring nothing; the likes keep
    /// the time they were made; an edit is queued for upload under the account.
    @Test func anAdoptionMergesWithWhatTheAccountHas() throws {
        _ = try likes.like(photoId: "unsplash:p0", accountId: "a")
        _ = try likes.like(photoId: "unsplash:p1", accountId: "a")
        _ = try likes.unlike(photoId: "unsplash:p1", accountId: "a")
        let accountOps = try ops("a").count
        let before = Date(timeIntervalSince1970: 1_800_000_000)
        for n in 0..<3 { _ = try likes.like(photoId: "unsplash:p\(n)", accountId: guest, now: before) }
        _ = try likes.like(photoId: "unsplash:p3", accountId: guest, now: before)
        _ = try likes.unlike(photoId: "unsplash:p3", accountId: guest)
        try recordEdit("e1", photo: "unsplash:p4", account: guest)

        let adopted = try GuestAdoption(store: store).adopt(into: "a")
        #expect(adopted == GuestCounts(likes: 3, edits: 1))
        let account = try liked("a")
        #expect(Set(account.keys) == ["unsplash:p0", "unsplash:p1", "unsplash:p2"])
        #expect(account["unsplash:p2"] == before && account["unsplash:p1"] == before, "a like keeps the time it was made")
        // p0: merged, its own op as it was; p1: the account's waiting unlike replaced by the like; p2:
        // new; and the edit.
        #expect(accountOps == 2)
        let queued = try ops("a")
        #expect(queued.filter { $0.entity == LikeActions.entity }.map { "\($0.entityId) \($0.op.rawValue)" }.sorted()
            == ["unsplash:p0 like", "unsplash:p1 like", "unsplash:p2 like"])
        #expect(queued.count == 4, "\(queued.map { "\($0.entity) \($0.entityId) \($0.op.rawValue)" })")
        #expect(queued.contains { $0.entity == EditActions.entity && $0.entityId == "e1" && $0.op == .upsert })
        #expect(try liked(guest).isEmpty && GuestAdoption(store: store).counts() == GuestCounts(likes: 0, edits: 0))
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM likes WHERE account_id = ''") } == 0)
        #expect(try GuestAdoption(store: store).underWay() == nil)
    }

    /// 1,200 likes in batches of 500; a crash after the first batch (the hook throws where the daemon
    /// would die) leaves 500 moved, the adoption recorded, nothing doubled; going on finishes it.
    @Test func anAdoptionCutShortGoesOnWhereItStopped() throws {
        for n in 0..<1_200 { _ = try likes.like(photoId: "unsplash:p\(n)", accountId: guest) }
        struct Crash: Error {}
        let adoption = GuestAdoption(store: store, batchSize: 500)
        #expect(throws: Crash.self) { try adoption.adopt(into: "a", afterBatch: { throw Crash() }) }
        #expect(try liked("a").count == 500 && liked(guest).count == 700)
        #expect(try ops("a").count == 500)
        #expect(try adoption.underWay() == "a")

        let rest = try adoption.adopt(into: "a")
        #expect(rest.likes == 700)
        #expect(try liked("a").count == 1_200 && liked(guest).isEmpty)
        let queued = try ops("a")
        #expect(queued.count == 1_200 && Set(queued.map(\.entityId)).count == 1_200)
        #expect(try adoption.underWay() == nil)
    }
}
