import Foundation
import GRDB

/// The near-duplicate checks of likes waiting to be sent (`like_checks`, schema v6). A like of a photo
/// whose perceptual hash is unknown is sent only once its file has been compared with the library, or
/// at the check's deadline (its op's `next_attempt_at`). A check that found a twin holds its op: the
/// push engine passes it over until the person keeps the like or undoes it.
public enum LikeCheckRows {
    public struct Hold: Sendable, Equatable {
        public var twinId: String
        public var distance: Int
        public init(twinId: String, distance: Int) {
            self.twinId = twinId
            self.distance = distance
        }
    }

    /// The like queued as `opId` waits for `photoId`'s file to be compared.
    public static func start(_ db: Database, opId: String, photoId: String) throws {
        try db.execute(sql: "INSERT INTO like_checks (op_id, photo_id) VALUES (?, ?)", arguments: [opId, photoId])
    }

    /// Every photo with a like waiting for its comparison: few (a like waits only until its file
    /// arrives, or a few seconds), so reading them all is cheaper than asking about a long list
    /// of photos.
    public static func photosWaiting(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT DISTINCT photo_id FROM like_checks WHERE twin_id IS NULL"))
    }

    /// Of `photoIds`, those with a like waiting for its check.
    public static func waiting(_ db: Database, photoIds: [String]) throws -> Set<String> {
        guard !photoIds.isEmpty else { return [] }
        return Set(try String.fetchAll(db, sql: """
            SELECT DISTINCT photo_id FROM like_checks WHERE twin_id IS NULL AND photo_id IN (\(OutboxStore.placeholders(photoIds.count)))
            """, arguments: StatementArguments(photoIds)))
    }

    /// The check of `photoId`'s waiting likes is done: with a twin, they are held; without, they are
    /// due now.
    public static func settle(_ db: Database, photoId: String, twin: Hold?, now: Date) throws {
        if let twin {
            try db.execute(sql: """
                UPDATE like_checks SET twin_id = ?, distance = ?, checked_at = ? WHERE photo_id = ? AND twin_id IS NULL
                """, arguments: [twin.twinId, twin.distance, now, photoId])
        } else {
            let opIds = try String.fetchAll(db, sql: "SELECT op_id FROM like_checks WHERE photo_id = ? AND twin_id IS NULL", arguments: [photoId])
            try release(db, opIds: opIds, now: now)
        }
    }

    /// The ops go out now: their checks end (the person kept a held like, or its file was compared).
    public static func release(_ db: Database, opIds: [String], now: Date) throws {
        guard !opIds.isEmpty else { return }
        let list = OutboxStore.placeholders(opIds.count)
        try forget(db, opIds: opIds)
        try db.execute(
            sql: "UPDATE outbox SET next_attempt_at = NULL, updated_at = ? WHERE op_id IN (\(list)) AND state = 'pending' AND attempts = 0",
            arguments: StatementArguments([now] + opIds.map { $0 as any DatabaseValueConvertible }))
    }

    /// The checks of these ops end; what their ops do next is the caller's.
    static func forget(_ db: Database, opIds: [String]) throws {
        try db.execute(
            sql: "DELETE FROM like_checks WHERE op_id IN (\(OutboxStore.placeholders(opIds.count)))", arguments: StatementArguments(opIds))
    }

    /// Pending ops held as near-duplicates, of `accountId` or of every account (nil).
    public static func heldCount(_ db: Database, accountId: String?) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT count(*) FROM like_checks c JOIN outbox o ON o.op_id = c.op_id
            WHERE o.state = 'pending' AND c.twin_id IS NOT NULL AND (? IS NULL OR o.account_id = ?)
            """), arguments: [accountId, accountId]) ?? 0
    }

    /// Every held op, by op id.
    public static func holds(_ db: Database) throws -> [String: Hold] {
        var holds: [String: Hold] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT op_id, twin_id, distance FROM like_checks WHERE twin_id IS NOT NULL") {
            holds[row["op_id"]] = Hold(twinId: row["twin_id"], distance: row["distance"])
        }
        return holds
    }

    /// The ops of this account whose check is still waiting for a file.
    public static func waitingOps(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT op_id FROM like_checks WHERE twin_id IS NULL"))
    }
}
