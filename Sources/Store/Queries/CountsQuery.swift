import GRDB
import Shared

/// The counters `daemon.status` shows, computed from the tables (the daemon caches them in memory and
/// recomputes after writes, so a status call does not scan 100,000 rows).
public enum CountsQuery {
    public static func library(_ db: Database, accountId: String) throws -> LibraryCounts {
        let photos = try Int.fetchOne(db, sql: "SELECT count(*) FROM photos") ?? 0
        let liked = try Int.fetchOne(
            db, sql: "SELECT count(*) FROM likes WHERE account_id = ? AND deleted_at IS NULL", arguments: [accountId]) ?? 0
        let edited = try Int.fetchOne(
            db, sql: "SELECT count(DISTINCT photo_id) FROM edits WHERE deleted_at IS NULL") ?? 0
        let dismissed = try Int.fetchOne(db, sql: "SELECT count(*) FROM photos WHERE dismissed_at IS NOT NULL") ?? 0
        let files = try Row.fetchOne(db, sql: "SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM photo_files")
        return LibraryCounts(
            photos: photos, liked: liked, edited: edited, dismissed: dismissed,
            files: files?["n"] ?? 0, bytes: files?["b"] ?? 0)
    }

    public static func outbox(_ db: Database, accountId: String?) throws -> OutboxCounts {
        var counts = OutboxCounts(pending: 0, inFlight: 0, rejected: 0)
        let rows = try Row.fetchAll(db, sql: "SELECT state, count(*) AS n FROM outbox GROUP BY state")
        for row in rows {
            let n: Int = row["n"]
            switch row["state"] as String {
            case "pending": counts.pending = n
            case "in_flight": counts.inFlight = n
            case "rejected": counts.rejected = n
            default: break
            }
        }
        return counts
    }
}
