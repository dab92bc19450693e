import Foundation
import GRDB

/// The outbox's queries, shared by those who enqueue (the library, in their own transactions) and the
/// push engine that drains it.
public enum OutboxStore {
    /// Pending ops for `entity` + `entityId` not yet sent (coalescing looks at these).
    public static func pending(_ db: Database, accountId: String, entity: String, entityId: String) throws -> [OutboxEntry] {
        try OutboxEntry.fetchAll(db, sql: """
            SELECT * FROM outbox WHERE account_id = ? AND entity = ? AND entity_id = ? AND state = 'pending' ORDER BY seq
            """, arguments: [accountId, entity, entityId])
    }

    /// Ops to send now: pending and due, oldest first, at most one per entity (a later op on the same
    /// entity waits for the earlier one: order per entity is kept, and a bulk upsert may not touch a
    /// row twice).
    public static func due(_ db: Database, accountId: String, entity: String, now: Date, limit: Int) throws -> [OutboxEntry] {
        try OutboxEntry.fetchAll(db, sql: """
            SELECT o.* FROM outbox o
            WHERE o.account_id = ? AND o.entity = ? AND o.state = 'pending'
              AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ?)
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

    /// When the earliest pending op of this account and entity becomes due.
    public static func nextDue(_ db: Database, accountId: String, entity: String, now: Date) throws -> NextDue {
        let row = try Row.fetchOne(db, sql: """
            SELECT count(*) AS n, min(next_attempt_at) AS due, sum(next_attempt_at IS NULL) AS undated FROM outbox
            WHERE account_id = ? AND entity = ? AND state = 'pending'
            """, arguments: [accountId, entity])
        guard let row, (row["n"] as Int) > 0 else { return .nothing }
        if (row["undated"] as Int? ?? 0) > 0 { return .now }
        guard let due = row["due"] as Date? else { return .now }
        return due <= now ? .now : .at(due)
    }

    public static func markInFlight(_ db: Database, _ seqs: [Int64], now: Date) throws {
        try db.execute(
            sql: "UPDATE outbox SET state = 'in_flight', attempts = attempts + 1, updated_at = ? WHERE seq IN (\(placeholders(seqs.count)))",
            arguments: StatementArguments([now] + seqs.map { $0 as any DatabaseValueConvertible }))
    }

    /// The server has them: they leave the outbox.
    public static func complete(_ db: Database, _ seqs: [Int64]) throws {
        try db.execute(sql: "DELETE FROM outbox WHERE seq IN (\(placeholders(seqs.count)))", arguments: StatementArguments(seqs))
    }

    /// A transient failure: back to pending, due again at `at`.
    public static func retryLater(_ db: Database, _ seqs: [Int64], at: Date, error: String, now: Date) throws {
        try db.execute(
            sql: "UPDATE outbox SET state = 'pending', next_attempt_at = ?, last_error = ?, updated_at = ? WHERE seq IN (\(placeholders(seqs.count)))",
            arguments: StatementArguments([at, error, now] + seqs.map { $0 as any DatabaseValueConvertible }))
    }

    /// The server refused: kept, with its reason, until the person retries or drops it.
    public static func reject(_ db: Database, _ seqs: [Int64], reason: String, now: Date) throws {
        try db.execute(
            sql: "UPDATE outbox SET state = 'rejected', last_error = ?, updated_at = ? WHERE seq IN (\(placeholders(seqs.count)))",
            arguments: StatementArguments([reason, now] + seqs.map { $0 as any DatabaseValueConvertible }))
    }

    /// After a crash, ops that were on their way may or may not have arrived; sending them again is
    /// harmless (every op is idempotent), so they become pending again.
    public static func resetInFlight(_ db: Database) throws -> Int {
        try db.execute(sql: "UPDATE outbox SET state = 'pending' WHERE state = 'in_flight'")
        return db.changesCount
    }

    public static func list(_ db: Database, rejectedOnly: Bool) throws -> [OutboxEntry] {
        try OutboxEntry.fetchAll(
            db, sql: "SELECT * FROM outbox \(rejectedOnly ? "WHERE state = 'rejected'" : "") ORDER BY seq")
    }

    public static func find(_ db: Database, opId: String) throws -> OutboxEntry? {
        try OutboxEntry.filter(Column("op_id") == opId).fetchOne(db)
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }
}
