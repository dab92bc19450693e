import GRDB
import Shared

/// The counters `daemon.status` shows. They are kept by triggers as rows change (SchemaV3): reading
/// them is a lookup each, whatever the library holds. Only the edited photos are counted here: edits
/// are few, and a distinct count is not a sum a trigger can keep.
public enum CountsQuery {
    /// What status shows: the library's counters and the outbox's.
    public static func all(_ db: Database, accountId: String) throws -> (library: LibraryCounts, outbox: OutboxCounts) {
        (try library(db, accountId: accountId), try outbox(db, accountId: accountId))
    }

    public static func library(_ db: Database, accountId: String) throws -> LibraryCounts {
        let counters = try values(db, ["photos", "dismissed", "files", "file_bytes", "liked:" + accountId])
        let edited = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(DISTINCT photo_id) FROM edits WHERE deleted_at IS NULL")) ?? 0
        var counts = LibraryCounts(
            photos: counters["photos"], liked: counters["liked:" + accountId], edited: edited, dismissed: counters["dismissed"],
            files: counters["files"], bytes: Int64(counters["file_bytes"]))
        let notShared = try originalsNotShared(db, accountId: accountId)
        counts.originalsNotShared = notShared > 0 ? notShared : nil
        return counts
    }

    /// The account's liked or edited photos whose original is not shared with its other devices (its
    /// metadata says why), through SchemaV9's partial index: those are few.
    static func originalsNotShared(_ db: Database, accountId: String) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT count(*) FROM photos p
            WHERE json_valid(p.metadata) AND json_extract(p.metadata, '$.original_note') IS NOT NULL
              AND (EXISTS (SELECT 1 FROM likes l WHERE l.account_id = ? AND l.photo_id = p.id AND l.deleted_at IS NULL)
                   OR EXISTS (SELECT 1 FROM edits e WHERE e.account_id = ? AND e.photo_id = p.id AND e.deleted_at IS NULL))
            """), arguments: [accountId, accountId]) ?? 0
    }

    /// Every account's ops: the queue is one (`accountId` is the caller's, kept for when it is not).
    public static func outbox(_ db: Database, accountId: String?) throws -> OutboxCounts {
        let counters = try values(db, ["outbox:pending", "outbox:in_flight", "outbox:rejected"])
        // Likes held as near-duplicates are pending ops that wait for the person, not for the server.
        let held = try LikeCheckRows.heldCount(db, accountId: nil)
        return OutboxCounts(
            pending: counters["outbox:pending"] - held, inFlight: counters["outbox:in_flight"], rejected: counters["outbox:rejected"],
            duplicates: held > 0 ? held : nil)
    }

    /// Named counters; one that has no row (an account that never liked) is 0.
    private static func values(_ db: Database, _ names: [String]) throws -> Counters {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT name, value FROM counters WHERE name IN (\(databaseQuestionMarks(count: names.count)))"),
            arguments: StatementArguments(names))
        return Counters(values: Dictionary(rows.map { ($0["name"], $0["value"]) }, uniquingKeysWith: { first, _ in first }))
    }

    private struct Counters {
        var values: [String: Int]
        subscript(name: String) -> Int { values[name] ?? 0 }
    }
}
