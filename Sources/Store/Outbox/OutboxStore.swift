import Foundation
import GRDB

/// The outbox's queries, shared by those who enqueue (the library, in their own transactions) and the
/// push engine that drains it.
public enum OutboxStore {
    /// Pending ops for `entity` + `entityId` not yet sent (coalescing looks at these).
    public static func pending(_ db: Database, accountId: String, entity: OutboxEntry.Entity, entityId: String) throws -> [OutboxEntry] {
        try OutboxEntry.all().filter(accountId: accountId).filter(entity, entityId).filter(state: .pending).orderedBySeq().fetchAll(db)
    }

    /// Ops to send now: pending and due, oldest first, at most one per entity (a later op on the same
    /// entity waits for the earlier one: order per entity is kept, and a bulk upsert may not touch a
    /// row twice).
    public static func due(_ db: Database, accountId: String, entity: OutboxEntry.Entity, now: Date, limit: Int) throws -> [OutboxEntry] {
        try OutboxEntry.fetchAll(db, sql: """
            SELECT o.* FROM outbox o
            WHERE o.account_id = ? AND o.entity = ? AND o.state = 'pending'
              AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ?)
              AND \(notHeld)
              AND NOT EXISTS (SELECT 1 FROM outbox e WHERE e.account_id = o.account_id AND e.entity = o.entity
                              AND e.entity_id = o.entity_id AND e.seq < o.seq AND e.state IN ('pending', 'in_flight'))
            ORDER BY o.seq LIMIT ?
            """, arguments: [accountId, entity, now, limit])
    }

    public enum NextDue: Equatable, Sendable {
        case nothing
        case now
        case at(Date)
    }

    /// When the earliest pending op of this account and entity becomes due (held ones never do).
    public static func nextDue(_ db: Database, accountId: String, entity: OutboxEntry.Entity, now: Date) throws -> NextDue {
        let row = try Row.fetchOne(db, sql: """
            SELECT count(*) AS n, min(next_attempt_at) AS due, sum(next_attempt_at IS NULL) AS undated FROM outbox o
            WHERE account_id = ? AND entity = ? AND state = 'pending' AND \(notHeld)
            """, arguments: [accountId, entity])
        guard let row, (row["n"] as Int) > 0 else { return .nothing }
        if (row["undated"] as Int? ?? 0) > 0 { return .now }
        guard let due = row["due"] as Date? else { return .now }
        return due <= now ? .now : .at(due)
    }

    /// Ops of this entity being sent right now.
    public static func inFlightCount(_ db: Database, accountId: String, entity: OutboxEntry.Entity, entityId: String) throws -> Int {
        try OutboxEntry.all().filter(accountId: accountId).filter(entity, entityId).filter(state: .inFlight).fetchCount(db)
    }

    /// Drops ops that a later op on the same entity, still to be sent, makes moot: every op carries the
    /// whole desired state of its server row (a like its liked_at and deleted_at, an edit removal its
    /// tombstone), so the later one alone decides. This is how an upload whose edit was removed while
    /// it was in flight leaves the queue when it comes back (retried, or reset after a crash), instead
    /// of being retried forever for a file that is gone. Ops in flight are left alone until they return.
    @discardableResult
    public static func dropSuperseded(_ db: Database, accountId: String) throws -> Int {
        try db.execute(sql: """
            DELETE FROM outbox WHERE account_id = ? AND state IN ('pending', 'rejected')
              AND EXISTS (SELECT 1 FROM outbox later WHERE later.account_id = outbox.account_id AND later.entity = outbox.entity
                          AND later.entity_id = outbox.entity_id AND later.seq > outbox.seq AND later.state IN ('pending', 'in_flight'))
            """, arguments: [accountId])
        return db.changesCount
    }

    /// Drops the ops of one entity still waiting to be sent (or refused): a later action made on another
    /// device decides that row now, and the server would keep it over them. Ops in flight are left to
    /// come back with the server's answer. Returns how many went.
    @discardableResult
    public static func supersedeWaiting(_ db: Database, accountId: String, entity: OutboxEntry.Entity, entityId: String) throws -> Int {
        // Compiled once: a pull asks it for every row it applies.
        try db.cachedStatement(sql: """
            DELETE FROM outbox WHERE account_id = ? AND entity = ? AND entity_id = ? AND state IN (?, ?)
            """).execute(arguments: [accountId, entity.rawValue, entityId, OutboxEntry.State.pending.rawValue, OutboxEntry.State.rejected.rawValue])
        return db.changesCount
    }

    /// A person asked to sync, or the backend answers again: every pending op is due now, whatever
    /// its backoff said — except a like waiting for its photo's file to be compared with the library
    /// (`LikeCheckRows`): the backend's return is when that file comes too, and its wait is bounded.
    @discardableResult
    public static func clearBackoff(_ db: Database, accountId: String) throws -> Int {
        try db.execute(
            sql: """
                UPDATE outbox SET next_attempt_at = NULL WHERE account_id = ? AND state = 'pending' AND next_attempt_at IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM like_checks c WHERE c.op_id = outbox.op_id)
                """,
            arguments: [accountId])
        return db.changesCount
    }

    /// What is left for one account, and the last failure met by an op still waiting.
    public struct Left: Sendable, Equatable {
        public var pending = 0
        public var inFlight = 0
        public var rejected = 0
        /// Pending likes held as near-duplicates until the person decides (not counted in `pending`).
        public var held = 0
        public var lastError: String?
        public var toSend: Int { pending + inFlight }
        public init() {}
    }

    public static func left(_ db: Database, accountId: String) throws -> Left {
        var left = Left()
        let byState = OutboxEntry.all().filter(accountId: accountId)
            .select(OutboxEntry.Columns.state, count(Column.rowID)).group(OutboxEntry.Columns.state)
        for row in try Row.fetchAll(db, byState) {
            let n: Int = row[1]
            // Read as text: a state no splashd writes is counted nowhere, where decoding it would trap.
            switch OutboxEntry.State(rawValue: row[0]) {
            case .pending: left.pending = n
            case .inFlight: left.inFlight = n
            case .rejected: left.rejected = n
            case nil: break
            }
        }
        left.held = try LikeCheckRows.heldCount(db, accountId: accountId)
        left.pending -= left.held
        left.lastError = try String.fetchOne(
            db,
            OutboxEntry.all().filter(accountId: accountId).filter(state: .pending).filter(OutboxEntry.Columns.lastError != nil)
                .select(OutboxEntry.Columns.lastError).order(OutboxEntry.Columns.updatedAt.desc).limit(1))
        return left
    }

    /// A pending op not held by a near-duplicate check (`LikeCheckRows`); the outbox is `o`.
    static let notHeld = "NOT EXISTS (SELECT 1 FROM like_checks c WHERE c.op_id = o.op_id AND c.twin_id IS NOT NULL)"

    public static func markInFlight(_ db: Database, _ seqs: [Int64], now: Date) throws {
        try OutboxEntry.filter(keys: seqs).updateAll(
            db, OutboxEntry.Columns.state.set(to: OutboxEntry.State.inFlight), OutboxEntry.Columns.attempts += 1,
            OutboxEntry.Columns.updatedAt.set(to: now))
    }

    /// Taken for sending and not sent (the engine stopped first): pending again, that attempt uncounted.
    public static func putBack(_ db: Database, _ seqs: [Int64]) throws {
        try OutboxEntry.filter(keys: seqs).filter(state: .inFlight).updateAll(
            db, OutboxEntry.Columns.state.set(to: OutboxEntry.State.pending), OutboxEntry.Columns.attempts -= 1)
    }

    /// The server has them: they leave the outbox.
    public static func complete(_ db: Database, _ seqs: [Int64]) throws {
        try OutboxEntry.deleteAll(db, keys: seqs)
    }

    /// A transient failure: back to pending, due again at `at`.
    public static func retryLater(_ db: Database, _ seqs: [Int64], at: Date, error: String, now: Date) throws {
        try OutboxEntry.filter(keys: seqs).updateAll(
            db, OutboxEntry.Columns.state.set(to: OutboxEntry.State.pending), OutboxEntry.Columns.nextAttemptAt.set(to: at),
            OutboxEntry.Columns.lastError.set(to: error), OutboxEntry.Columns.updatedAt.set(to: now))
    }

    /// The server refused: kept, with its reason, until the person retries or drops it.
    public static func reject(_ db: Database, _ seqs: [Int64], reason: String, now: Date) throws {
        try OutboxEntry.filter(keys: seqs).updateAll(
            db, OutboxEntry.Columns.state.set(to: OutboxEntry.State.rejected), OutboxEntry.Columns.lastError.set(to: reason),
            OutboxEntry.Columns.updatedAt.set(to: now))
    }

    /// After a crash, ops that were on their way may or may not have arrived; sending them again is
    /// harmless (every op is idempotent), so they become pending again.
    public static func resetInFlight(_ db: Database) throws -> Int {
        try OutboxEntry.all().filter(state: .inFlight).updateAll(db, OutboxEntry.Columns.state.set(to: OutboxEntry.State.pending))
    }

    public static func list(_ db: Database, rejectedOnly: Bool) throws -> [OutboxEntry] {
        let all = OutboxEntry.all().orderedBySeq()
        return try (rejectedOnly ? all.filter(state: .rejected) : all).fetchAll(db)
    }

    public static func find(_ db: Database, opId: String) throws -> OutboxEntry? {
        try OutboxEntry.filter(OutboxEntry.Columns.opId == opId).fetchOne(db)
    }

    /// Makes a waiting or rejected op due now. Nil for no such op; an op in flight is left as it is.
    public static func retryNow(_ db: Database, opId: String, now: Date) throws -> OutboxEntry.State? {
        guard var op = try find(db, opId: opId) else { return nil }
        guard op.state != .inFlight else { return .inFlight }
        // A like held as a near-duplicate is kept by the person: its check ends.
        try LikeCheckRows.forget(db, opIds: [opId])
        op.state = .pending
        op.nextAttemptAt = nil
        op.updatedAt = now
        try op.update(db)
        return .pending
    }

    /// Deletes an op unless it is being sent. Returns the state it had, nil for no such op.
    public static func drop(_ db: Database, opId: String) throws -> OutboxEntry.State? {
        guard let op = try find(db, opId: opId) else { return nil }
        if op.state != .inFlight { try op.delete(db) }
        return op.state
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }
}

extension DerivableRequest<OutboxEntry> {
    /// One account's ops.
    public func filter(accountId: String) -> Self {
        filter(OutboxEntry.Columns.accountId == accountId)
    }

    /// The ops about one entity: a like of a photo, an edit, an original, the profile.
    public func filter(_ entity: OutboxEntry.Entity, _ entityId: String) -> Self {
        filter(OutboxEntry.Columns.entity == entity && OutboxEntry.Columns.entityId == entityId)
    }

    public func filter(state: OutboxEntry.State) -> Self {
        filter(OutboxEntry.Columns.state == state)
    }

    /// Ops not on their way: pending, or refused and kept for the person.
    public func waiting() -> Self {
        filter([OutboxEntry.State.pending, .rejected].contains(OutboxEntry.Columns.state))
    }

    /// In the order they were queued.
    public func orderedBySeq() -> Self {
        order(OutboxEntry.Columns.seq)
    }
}
