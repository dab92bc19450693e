import GRDB

/// Perceptual hashes kept with photos (64 bits, stored as SQLite's signed integer).
public enum PerceptualHashQuery {
    /// The library's hashes: imported photos (local files, photos picked from Google Photos), and remote
    /// ones the account likes or has edited.
    public static func library(_ db: Database, accountId: String) throws -> [(id: String, hash: UInt64)] {
        try Row.fetchAll(db, sql: """
            SELECT p.id, p.phash FROM photos p
            WHERE p.phash IS NOT NULL AND (
                p.source IN ('local', 'google')
                OR EXISTS (SELECT 1 FROM likes l WHERE l.photo_id = p.id AND l.account_id = ? AND l.deleted_at IS NULL)
                OR EXISTS (SELECT 1 FROM edits e WHERE e.photo_id = p.id AND e.account_id = ? AND e.deleted_at IS NULL))
            """, arguments: [accountId, accountId]).map { row in
            (row["id"], UInt64(bitPattern: row["phash"] as Int64))
        }
    }

    public static func hash(_ db: Database, photoId: String) throws -> UInt64? {
        try Int64.fetchOne(db, PhotoRecord.filter(key: photoId).select(PhotoRecord.Columns.phash)).map { UInt64(bitPattern: $0) }
    }

    public static func set(_ db: Database, hash: UInt64, photoId: String) throws {
        try PhotoRecord.filter(key: photoId).updateAll(db, PhotoRecord.Columns.phash.set(to: Int64(bitPattern: hash)))
    }
}
