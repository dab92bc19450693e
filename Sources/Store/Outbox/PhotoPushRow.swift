import Foundation
import GRDB

/// The photo a queued like or edit carries — its payload's `photo` object (Library's PhotoRowFields) —
/// as the server's `photos` row (supabase/migrations; the keys `ServerPhotoRow` reads back), built by
/// SQLite's JSON functions. One builder for both kinds of op, so that a photo reaches the server as the
/// same row whichever brought it: its URLs, kept as a JSON object's text, go as that object, or as none
/// when they do not read as one.
public enum PhotoPushRow {
    /// Why the payload `p` (SQL naming a JSON object) cannot give a photo row, as CASE branches giving
    /// the words; none applies to a payload with a good photo or with none.
    static func problems(_ p: String) -> String {
        """
        WHEN json_type(\(p), '$.photo') NOT IN ('object', 'null') THEN 'its photo is not an object'
        WHEN EXISTS (SELECT 1 FROM json_each(\(p), '$.photo') f WHERE
                       f.key IN ('width', 'height') AND f.type NOT IN ('integer', 'null')
                       OR f.key IN ('title', 'description', 'authorName', 'authorUrl', 'color', 'urls', 'originalSha256', 'originalNote')
                          AND f.type NOT IN ('text', 'null'))
          THEN 'its photo has a field of the wrong type'
        """
    }

    /// The row of the payload `p`'s photo as a JSON object's text; NULL when it carries none.
    static func row(_ p: String) -> String {
        """
        CASE WHEN json_type(\(p), '$.photo') = 'object' THEN json_object(
          'photo_id', json_extract(\(p), '$.photoId'),
          'title', json_extract(\(p), '$.photo.title'),
          'description', json_extract(\(p), '$.photo.description'),
          'author_name', json_extract(\(p), '$.photo.authorName'),
          'author_url', json_extract(\(p), '$.photo.authorUrl'),
          'color', json_extract(\(p), '$.photo.color'),
          'width', json_extract(\(p), '$.photo.width'),
          'height', json_extract(\(p), '$.photo.height'),
          'original_sha256', json_extract(\(p), '$.photo.originalSha256'),
          'original_note', json_extract(\(p), '$.photo.originalNote'),
          'urls', CASE WHEN json_valid(json_extract(\(p), '$.photo.urls')) AND json_type(json_extract(\(p), '$.photo.urls')) = 'object'
                       THEN json(json_extract(\(p), '$.photo.urls')) ELSE json_object() END) END
        """
    }

    /// `row(p)`, or NULL when the server holds that very row for the account `account` (SQL naming the
    /// op's account id) — it took it from this device before (`server_photos`, `recordHeld`): nothing
    /// to send again. (`nullif` builds the row once. Qualify `account`: the subquery's table has an
    /// `account_id` of its own, which an unqualified name would mean.)
    static func unlessHeld(_ p: String, account: String) -> String {
        """
        nullif(\(row(p)), (SELECT s.row FROM server_photos s WHERE s.account_id = \(account) AND s.photo_id = json_extract(\(p), '$.photoId')))
        """
    }

    /// The server took `rows` (this builder's JSON objects) for `accountId`: the same rows are not sent
    /// again. In the transaction that records the ops sent.
    public static func recordHeld(_ db: Database, accountId: String, rows: [String]) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO server_photos (account_id, photo_id, row) VALUES (?1, json_extract(?2, '$.photo_id'), ?2)
            ON CONFLICT (account_id, photo_id) DO UPDATE SET row = excluded.row
            """)
        for row in rows {
            try statement.execute(arguments: [accountId, row])
        }
    }

    /// The row of the photo `photoId` as the store holds it now (no op carries it), for a change to the
    /// photo alone (its original kept on this machine); nil for a photo the store does not have.
    public static func current(_ db: Database, photoId: String) throws -> String? {
        guard let photo = try PhotoRecord.fetchOne(db, key: photoId) else { return nil }
        let metadata = PhotoMetadata.decode(photo.metadata)
        var object: [String: Any] = ["photoId": photoId]
        var fields: [String: Any] = [:]
        for (key, value) in [
            ("title", photo.title), ("description", photo.description), ("authorName", photo.authorName), ("authorUrl", photo.authorUrl),
            ("color", photo.color), ("urls", photo.urls), ("originalSha256", metadata?.originalSha256), ("originalNote", metadata?.originalNote),
        ] { if let value { fields[key] = value } }
        if let width = photo.width { fields["width"] = width }
        if let height = photo.height { fields["height"] = height }
        object["photo"] = fields
        let payload = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        return try String.fetchOne(db, sql: "WITH x(p) AS (SELECT ?) SELECT \(row("x.p")) FROM x", arguments: [payload])
    }

    /// The photo rows of the outbox's ops `seqs`, by seq; absent for an op that carries no photo, whose
    /// photo the server holds as it is (`unlessHeld`), that is not in the outbox, or whose payload does
    /// not read (its pusher refuses that op on its own).
    public static func fetch(_ db: Database, seqs: [Int64]) throws -> [Int64: String] {
        var rows: [Int64: String] = [:]
        let cursor = try Row.fetchCursor(db, sql: """
            SELECT seq, CASE WHEN json_valid(payload) AND json_type(payload) = 'object' AND (CASE \(problems("payload")) END) IS NULL
                             THEN \(unlessHeld("payload", account: "outbox.account_id")) END
            FROM outbox WHERE seq IN (\(OutboxStore.placeholders(seqs.count)))
            """, arguments: StatementArguments(seqs))
        while let found = try cursor.next() {
            if let photo: String = found[1] { rows[found[0]] = photo }
        }
        return rows
    }
}
