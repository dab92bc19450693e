import Foundation
import GRDB
import Library
import Shared
import Store
import Support
import Testing
import TestSupport

/// A like's two moments on a device whose clock is ten minutes behind the server's: the like's own times
/// and stamp are the server's (they order it against other devices'), its bookkeeping this machine's
/// (compared with a pull's start and the outbox's due times, both read from this machine's clock).
@Suite struct LikeMomentsTests {
    let dir = TemporaryDirectory()
    let store: Store
    /// The server's clock, ten minutes ahead of this machine's, known to a few milliseconds.
    let clock: ServerClock

    init() throws {
        store = try Store(path: dir.file("s.sqlite"))
        try store.write { db in try PhotoRecord(source: .unsplash, remoteId: "a", urls: #"{"regular":"https://x/a.jpg"}"#, fetchedAt: Date()).insert(db) }
        clock = ServerClock(device: DeviceClock(wall: { Date() }, boot: { 0 }, bootId: "b"))
        let server = Date().timeIntervalSince1970 + 600
        clock.observe(serverSecond: Int64(server.rounded(.down)), sentAt: 0, receivedAt: 0)
        clock.observe(serverSecond: Int64(server.rounded(.down)) + 1, sentAt: server.rounded(.down) + 1 - server, receivedAt: server.rounded(.down) + 1 - server)
    }

    @Test func theActionIsOnTheServersClockItsBookkeepingOnThisMachines() throws {
        let check = LikeActions.ArrivalCheck(seconds: 30, canArrive: { _ in true })
        let before = Date()
        _ = try LikeActions(store: store, clock: clock).like(photoId: "unsplash:a", accountId: "u", refuseDuplicatesWithin: 8, checkArrival: check)
        let like = try #require(try store.read { db in try LikeRecord.find(db, accountId: "u", photoId: "unsplash:a") })
        let op = try #require(try store.read { db in try OutboxStore.list(db, rejectedOnly: false) }.first)
        #expect(abs(like.likedAt.timeIntervalSince(before) - 600) < 5, "liked at the server's time: \(like.likedAt)")
        #expect(abs(Double(like.stamp.milliseconds) / 1000 - before.timeIntervalSince1970 - 600) < 5)
        #expect(abs(like.updatedAt.timeIntervalSince(before)) < 5, "updated at this machine's time: \(like.updatedAt)")
        let due = try #require(op.nextAttemptAt)
        #expect(abs(due.timeIntervalSince(before) - 30) < 5, "the wait for the file is 30 s of this machine's clock: \(due)")
    }
}
