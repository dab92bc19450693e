import Foundation
import GRDB
import Library
import Store
import Testing
import TestSupport

@Suite struct OutboxPayloadTests {
    /// A like's time goes to the server in its op and comes back to every device: cut to whole
    /// seconds, a device could not tell its own like from an earlier one made in the same second.
    @Test func aLikeOpCarriesItsTimeToTheMillisecond() throws {
        let dir = TemporaryDirectory()
        let store = try Store(path: dir.file("s.sqlite"))
        try store.write { db in try PhotoFixtures.photo("a").insert(db) }
        let likedAt = Date(timeIntervalSince1970: 1_795_489_401.823)
        _ = try LikeActions(store: store).like(photoId: "unsplash:a", accountId: "acct", now: likedAt)
        _ = try LikeActions(store: store).unlike(photoId: "unsplash:a", accountId: "acct", now: likedAt.addingTimeInterval(0.25))

        let op = try #require(try store.read { db in try OutboxStore.list(db, rejectedOnly: false) }.last)
        let payload = try OutboxPayload.decode(LikeActions.Payload.self, from: op.payload)
        #expect(abs(payload.likedAt.timeIntervalSince(likedAt)) < 0.001)
        #expect(abs(try #require(payload.deletedAt).timeIntervalSince(likedAt.addingTimeInterval(0.25))) < 0.001)
    }

    @Test func aPayloadQueuedInWholeSecondsByAnEarlierVersionStillReads() throws {
        let old = #"{"deletedAt":"2026-11-24T03:14:59Z","likedAt":"2026-11-24T03:14:58Z","photoId":"a","wasNew":false}"#
        let payload = try OutboxPayload.decode(LikeActions.Payload.self, from: old)
        #expect(payload.likedAt == Date(timeIntervalSince1970: 1_795_490_098))
        #expect(payload.deletedAt == Date(timeIntervalSince1970: 1_795_490_099))
    }

    @Test func aDateThatIsNotISO8601IsAnErrorNotAGuess() {
        let bad = #"{"likedAt":"yesterday","photoId":"a","wasNew":false}"#
        #expect(throws: DecodingError.self) { try OutboxPayload.decode(LikeActions.Payload.self, from: bad) }
    }

    /// An op or an entity no splashd writes (the store changed by something else) is an error naming the
    /// row and the value when read, not a crash, and the other rows stay as they were.
    @Test func anUnknownOpIsAnErrorThatNamesIt() throws {
        let dir = TemporaryDirectory()
        let store = try Store(path: dir.file("s.sqlite"))
        try store.write { db in try PhotoFixtures.photo("a").insert(db) }
        _ = try LikeActions(store: store).like(photoId: "unsplash:a", accountId: "acct")
        try store.write { db in
            try db.execute(sql: """
                INSERT INTO outbox (op_id, account_id, entity, entity_id, op, payload, state, attempts, created_at, updated_at)
                VALUES ('x', 'acct', 'like', 'unsplash:b', 'frobnicate', '{}', 'pending', 0, ?, ?)
                """, arguments: [Date(), Date()])
        }
        let error = #expect(throws: OutboxEntry.UnknownValue.self) { try store.read { db in try OutboxStore.list(db, rejectedOnly: false) } }
        #expect(error?.value == "frobnicate" && error?.description.contains("unknown op 'frobnicate'") == true)
        try store.write { db in _ = try db.execute(sql: "UPDATE outbox SET op = 'like', entity = 'frobs' WHERE op = 'frobnicate'") }
        let entity = #expect(throws: OutboxEntry.UnknownValue.self) { try store.read { db in try OutboxStore.list(db, rejectedOnly: false) } }
        #expect(entity?.description.contains("unknown entity 'frobs'") == true, "\(String(describing: entity))")
        try store.write { db in _ = try db.execute(sql: "DELETE FROM outbox WHERE entity = 'frobs'") }
        #expect(try store.read { db in try OutboxStore.list(db, rejectedOnly: false) }.map(\.op) == [.like])
    }

    /// An outbox row reads back as it was written, every column (it is read column by column, not
    /// through Codable, and the writes still go through Codable).
    @Test func anOutboxRowReadsBackAsWritten() throws {
        let dir = TemporaryDirectory()
        let store = try Store(path: dir.file("s.sqlite"))
        let now = Date(timeIntervalSince1970: 1_795_489_401.823)
        var entry = OutboxEntry(accountId: "acct", entity: .like, entityId: "unsplash:a", op: .like, payload: #"{"a":1}"#, now: now)
        entry.state = .inFlight
        entry.attempts = 3
        entry.nextAttemptAt = now.addingTimeInterval(30)
        entry.lastError = "503 Service Unavailable"
        entry.updatedAt = now.addingTimeInterval(1)
        let plain = OutboxEntry(accountId: "acct", entity: .like, entityId: "unsplash:b", op: .like, payload: "{}", now: now)
        for original in [entry, plain] {
            let written = try store.write { db in try original.inserted(db) }
            #expect(written.seq != nil)
            let read = try store.read { db in try OutboxStore.find(db, opId: original.opId) }
            #expect(read == written)
        }
    }
}
