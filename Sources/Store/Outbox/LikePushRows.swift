import GRDB

/// Queued like ops as the server's rows, built by SQLite from their payloads (LikeActions.Payload): the
/// like (`photo_id`, `liked_at`, `deleted_at`) and, when the op carries its photo's metadata, the photo
/// in the columns of the server's `photos` (supabase/migrations), the same keys as `ServerPhotoRow`
/// writes. SQLite's JSON functions do it in C, in one pass: decoding 10,000 payloads with Foundation's
/// coder and encoding them again as rows was 290 ms of CPU in a 10,000-like push (issue 19, item 2).
///
/// An op whose payload this version cannot read gets no rows, only what is wrong with it, so that it
/// is refused on its own; the date in it must be one SQLite reads (ISO 8601, as OutboxPayload writes).
public enum LikePushRows {
    public struct Rows: Sendable, Equatable {
        /// The like, as a JSON object.
        public var like: String
        /// The photo's metadata, as a JSON object; nil when the op carries none, or when the server holds
        /// it as it is (`PhotoPushRow.unlessHeld`).
        public var photo: String?
    }

    public enum Reading: Sendable, Equatable {
        case rows(Rows)
        /// What in the payload this version cannot read.
        case unreadable(String)
    }

    /// The ops `seqs` of the outbox, each as its rows, by seq. An op that is not in the outbox is absent.
    public static func fetch(_ db: Database, seqs: [Int64]) throws -> [Int64: Reading] {
        var readings: [Int64: Reading] = [:]
        readings.reserveCapacity(seqs.count)
        let rows = try Row.fetchCursor(db, sql: """
            WITH checked AS (
              SELECT seq, account_id, payload AS p, CASE
                WHEN NOT json_valid(payload) OR json_type(payload) IS NOT 'object' THEN 'it is not a JSON object'
                WHEN json_type(payload, '$.photoId') IS NOT 'text' THEN 'it names no photo'
                WHEN json_type(payload, '$.likedAt') IS NOT 'text' OR julianday(json_extract(payload, '$.likedAt')) IS NULL
                  THEN 'its like time is not a date'
                WHEN json_type(payload, '$.deletedAt') = 'text' AND julianday(json_extract(payload, '$.deletedAt')) IS NULL
                  OR json_type(payload, '$.deletedAt') NOT IN ('text', 'null') THEN 'its unlike time is not a date'
                \(PhotoPushRow.problems("payload"))
              END AS problem
              FROM outbox WHERE seq IN (\(OutboxStore.placeholders(seqs.count)))
            )
            SELECT seq, problem,
              CASE WHEN problem IS NULL THEN json_object(
                'photo_id', json_extract(p, '$.photoId'),
                'liked_at', json_extract(p, '$.likedAt'),
                'deleted_at', json_extract(p, '$.deletedAt')) END AS "like",
              CASE WHEN problem IS NULL THEN \(PhotoPushRow.unlessHeld("p", account: "checked.account_id")) END AS photo
            FROM checked
            """, arguments: StatementArguments(seqs))
        while let row = try rows.next() {
            let seq: Int64 = row["seq"]
            if let problem: String = row["problem"] {
                readings[seq] = .unreadable(problem)
            } else {
                readings[seq] = .rows(Rows(like: row["like"], photo: row["photo"]))
            }
        }
        return readings
    }
}
