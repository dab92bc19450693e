import GRDB

/// Server rows a pull read but did not apply, because a local op on the same entity was still to be
/// sent (the person's newer intent). The pull's cursor moves past them — it is one position, and the
/// rows after them must not wait — so they are kept here and read again, by key, once nothing is
/// waiting for that entity. Without this, an op that never reaches the server (a like and its unlike
/// that cancelled, an op dropped or refused) would leave the device out of step for good.
public enum PullRereads {
    public static func remember(_ db: Database, accountId: String, table: String, entityId: String) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO pull_rereads (account_id, table_name, entity_id) VALUES (?, ?, ?)",
            arguments: [accountId, table, entityId])
    }

    public static func forget(_ db: Database, accountId: String, table: String, entityIds: [String]) throws {
        for id in entityIds {
            try db.execute(
                sql: "DELETE FROM pull_rereads WHERE account_id = ? AND table_name = ? AND entity_id = ?",
                arguments: [accountId, table, id])
        }
    }

    /// The remembered rows of `table` whose entity has no op pending or in flight any more: ready to
    /// be read again. `entity` is the outbox's name for them.
    public static func ready(_ db: Database, accountId: String, table: String, entity: OutboxEntry.Entity, limit: Int) throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT r.entity_id FROM pull_rereads r
            WHERE r.account_id = ? AND r.table_name = ?
              AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.account_id = r.account_id AND o.entity = ?
                              AND o.entity_id = r.entity_id AND o.state IN ('pending', 'in_flight'))
            ORDER BY r.entity_id LIMIT ?
            """, arguments: [accountId, table, entity, limit])
    }

    /// Whether an op for this entity is still to be sent (pending or in flight).
    public static func opWaiting(_ db: Database, accountId: String, entity: OutboxEntry.Entity, entityId: String) throws -> Bool {
        // Asked for every pulled row: compiled once per connection.
        try Bool.fetchOne(db.cachedStatement(sql: """
            SELECT EXISTS (SELECT 1 FROM outbox WHERE account_id = ? AND entity = ? AND entity_id = ? AND state IN ('pending', 'in_flight'))
            """), arguments: [accountId, entity, entityId]) ?? false
    }
}
