import Foundation
import GRDB
import Library
import Shared
import Store
import Sync
import Support
import Testing
import TestSupport

@Suite struct PushBackoffTests {
    let backoff = PushEngine.Configuration().backoff

    @Test func doublesFromOneSecondToFiveMinutesWithJitter() {
        #expect(backoff.delay(afterFailures: 1, sample: 0) == .seconds(1))
        #expect(backoff.delay(afterFailures: 2, sample: 0) == .seconds(2))
        #expect(backoff.delay(afterFailures: 5, sample: 0) == .seconds(16))
        #expect(backoff.delay(afterFailures: 30, sample: 0) == .seconds(300))
        #expect(backoff.delay(afterFailures: 5, sample: 1) == .seconds(8), "jitter never goes below half")
    }

    @Test func retryAfterWinsWhenLonger() {
        #expect(backoff.delay(afterFailures: 1, retryAfter: .seconds(30), sample: 0) == .seconds(30))
        #expect(backoff.delay(afterFailures: 9, retryAfter: .seconds(1), sample: 0) == .seconds(256))
    }
}

@Suite struct CoalescingTests {
    let dir = TemporaryDirectory()
    let store: Store
    let likes: LikeActions

    init() throws {
        store = try Store(path: dir.file("s.sqlite"))
        likes = LikeActions(store: store)
        try store.write { db in
            for n in 0..<3 { try PhotoRecord(source: .unsplash, remoteId: "c\(n)", fetchedAt: Date()).insert(db) }
        }
    }

    func ops() throws -> [OutboxEntry] { try store.read { db in try OutboxStore.list(db, rejectedOnly: false) } }

    @Test func theLikeAndItsWriteCommitTogetherAndRepeatsCollapse() throws {
        #expect(try likes.like(photoId: "unsplash:c0", accountId: "a") == .changed(queued: true))
        #expect(try likes.like(photoId: "unsplash:c0", accountId: "a") == .unchanged)
        #expect(try ops().map(\.op) == [.like])
    }

    @Test func aLikeAndItsUnlikeCollapseIntoTheUnlikeNeverIntoNothing() throws {
        // The server's row for the photo is the account's, shared with its other devices: it may hold
        // a like this device has not pulled. The unlike must reach it.
        _ = try likes.like(photoId: "unsplash:c1", accountId: "a")
        #expect(try likes.unlike(photoId: "unsplash:c1", accountId: "a") == .changed(queued: true))
        #expect(try ops().map(\.op) == [.unlike])
    }

    @Test func anUnlikeOfASentLikeIsATombstone() throws {
        _ = try likes.like(photoId: "unsplash:c2", accountId: "a")
        try store.write { db in try OutboxStore.complete(db, try OutboxStore.list(db, rejectedOnly: false).compactMap(\.seq)) }
        _ = try likes.unlike(photoId: "unsplash:c2", accountId: "a")
        _ = try likes.like(photoId: "unsplash:c2", accountId: "a")
        let queued = try ops()
        #expect(queued.map(\.op) == [.like], "the unlike and the like again collapse into the final intent")
    }

    @Test func anotherAccountsOpsAreItsOwn() throws {
        _ = try likes.like(photoId: "unsplash:c0", accountId: "a")
        _ = try likes.like(photoId: "unsplash:c0", accountId: "b")
        let due = try store.read { db in try OutboxStore.due(db, accountId: "b", entity: LikeActions.entity, now: Date(), limit: 10) }
        #expect(due.map(\.accountId) == ["b"])
    }

    @Test func inFlightOpsBecomePendingAgainAfterACrash() throws {
        _ = try likes.like(photoId: "unsplash:c0", accountId: "a")
        try store.write { db in try OutboxStore.markInFlight(db, try OutboxStore.list(db, rejectedOnly: false).compactMap(\.seq), now: Date()) }
        #expect(try store.write { db in try OutboxStore.resetInFlight(db) } == 1)
        #expect(try ops().map(\.state) == [.pending])
    }
}
