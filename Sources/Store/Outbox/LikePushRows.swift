import GRDB
import Support

/// Queued like ops as the server's rows, built by SQLite from their payloads (LikeActions.Payload): the
/// like (`photo_id`, `liked_at`, `deleted_at`) and, when the op carries its photo's metadata, the photo
/// in the columns of the server's `photos` (supabase/migrations), the same keys as `ServerPhotoRow`
/// writes. SQLite's JSON functions do it in C, in one pass: decoding 10,000 payloads with Foundation's
/// coder and encoding them again as rows was 290 ms of CPU in a 10,000-like push.
///
/// An op whose payload this version cannot read gets no rows, only what is wrong with it, so that it
/// is refused on its own; the date in it must be one SQLite reads (ISO 8601, as OutboxPayload writes).
public enum LikePushRows {
    public struct Rows: Sendable, Equatable {
        /// The like, as a JSON object.
        public var like: String
        public var photoId: String
        /// The action's stamp as sent (`acted_at`, `acted_by`).
        public var stamp: ActionStamp
        /// The stamp the op carried when it lay past `latest` (and was sent as `latest`).
        public var clampedFrom: Int64?
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
    /// An action stamped after `latest` (milliseconds on the server's clock: the server's now and the
    /// skew it allows) goes as `latest`. An op queued before stamps stands stamped by its own times and
    /// `device`.
    public static func fetch(_ db: Database, seqs: [Int64], latest: Int64 = .max, device: String = "") throws -> [Int64: Reading] {
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
                WHEN json_type(payload, '$.actedAt') NOT IN ('integer', 'null') THEN 'its action time is not a number'
                WHEN json_type(payload, '$.actedBy') NOT IN ('text', 'null') THEN 'its device is not text'
                \(PhotoPushRow.problems("payload"))
              END AS problem
              FROM outbox WHERE seq IN (\(OutboxStore.placeholders(seqs.count)))
            ),
            stamped AS (
              SELECT *, CASE WHEN problem IS NULL THEN coalesce(json_extract(p, '$.actedAt'), CAST(round((julianday(coalesce(
                         json_extract(p, '$.deletedAt'), json_extract(p, '$.likedAt'))) - 2440587.5) * 86400000) AS INTEGER)) END AS acted,
                     CASE WHEN problem IS NULL THEN coalesce(json_extract(p, '$.actedBy'), ?) END AS acted_by
              FROM checked
            )
            SELECT seq, problem, CASE WHEN problem IS NULL THEN json_extract(p, '$.photoId') END AS photo_id, min(acted, ?) AS sent_ms,
              acted, acted_by,
              CASE WHEN problem IS NULL THEN json_object(
                'photo_id', json_extract(p, '$.photoId'),
                'liked_at', json_extract(p, '$.likedAt'),
                'deleted_at', json_extract(p, '$.deletedAt'),
                'acted_at', strftime('%Y-%m-%dT%H:%M:%fZ', min(acted, ?) / 1000.0, 'unixepoch'),
                'acted_by', acted_by) END AS "like",
              CASE WHEN problem IS NULL THEN \(PhotoPushRow.unlessHeld("p", account: "stamped.account_id")) END AS photo
            FROM stamped
            """, arguments: StatementArguments(seqs.map { $0 as any DatabaseValueConvertible } + [device, latest, latest]))
        while let row = try rows.next() {
            let seq: Int64 = row["seq"]
            if let problem: String = row["problem"] {
                readings[seq] = .unreadable(problem)
            } else {
                let sent: Int64 = row["sent_ms"]
                let acted: Int64 = row["acted"]
                readings[seq] = .rows(Rows(
                    like: row["like"], photoId: row["photo_id"], stamp: ActionStamp(milliseconds: sent, device: row["acted_by"]),
                    clampedFrom: acted == sent ? nil : acted, photo: row["photo"]))
            }
        }
        return readings
    }
}
