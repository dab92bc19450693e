import Foundation
import GRDB
import Shared

/// What applying a pulled page asks of the store for each row, as statements compiled once per
/// connection: a page of 500 likes asked four questions per row, each compiled anew (GRDB's statement
/// authorizer runs on every compile), which was most of the time the daemon spent applying the echo of
/// its own pushes.
public enum PulledRows {
    public static func photoExists(_ db: Database, id: String) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM photos WHERE id = ?)"), arguments: [id]) ?? false
    }

    /// Of `ids`, those the store holds with their metadata (URLs or metadata): a missing or bare row
    /// needs the server's. Asked 500 at a time: a pull's rows can name more photos than a statement
    /// may have arguments.
    public static func photosWithMetadata(_ db: Database, ids: some Collection<String>) throws -> Set<String> {
        let all = Array(ids)
        var found = Set<String>()
        for start in stride(from: 0, to: all.count, by: 500) {
            let chunk = all[start..<min(start + 500, all.count)]
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            found.formUnion(try String.fetchAll(db, sql: """
                SELECT id FROM photos WHERE id IN (\(marks)) AND (urls IS NOT NULL OR metadata IS NOT NULL)
                """, arguments: StatementArguments(Array(chunk))))
        }
        return found
    }

    /// A bare row for a photo a pulled like or edit names: nothing but its id, filled in once its
    /// metadata comes (`fillBarePhoto`). A photo already here is left as it is.
    public static func insertBarePhoto(_ db: Database, source: PhotoSource, remoteId: String, fetchedAt: Date) throws {
        try db.cachedStatement(sql: """
            INSERT INTO photos (id, source, remote_id, fetched_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
            """).execute(arguments: [source.rawValue + ":" + remoteId, source.rawValue, remoteId, fetchedAt])
    }

    /// Fills a bare row (no URLs, no metadata) with `photo`'s metadata, keeping what this device set on
    /// it (dismissed, its perceptual hash); a photo with its URLs or metadata keeps its own. Whether a
    /// row was filled. One compiled statement: GRDB's record update encoded every column by name and
    /// fetched the row first, most of the time a pull of 100,000 photos spent here.
    public static func fillBarePhoto(_ db: Database, _ photo: PhotoRecord) throws -> Bool {
        try db.cachedStatement(sql: """
            UPDATE photos SET title = ?, description = ?, author_name = ?, author_url = ?, width = ?, height = ?,
                color = ?, color_bucket = ?, urls = ?, metadata = ?, fetched_at = ?
            WHERE id = ? AND urls IS NULL AND metadata IS NULL
            """).execute(arguments: [
                photo.title, photo.description, photo.authorName, photo.authorUrl, photo.width, photo.height,
                photo.color, photo.colorBucket, photo.urls, photo.metadata, photo.fetchedAt, photo.id,
            ])
        return db.changesCount > 0
    }

    /// Inserts the like or replaces its state (an upsert: a REPLACE would delete the row first, and
    /// with it what SchemaV4 keeps on it).
    public static func saveLike(_ db: Database, _ like: LikeRecord) throws {
        try db.cachedStatement(sql: """
            INSERT INTO likes (account_id, photo_id, liked_at, updated_at, deleted_at, acted_ms, acted_by) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (account_id, photo_id) DO UPDATE SET
                liked_at = excluded.liked_at, updated_at = excluded.updated_at, deleted_at = excluded.deleted_at,
                acted_ms = excluded.acted_ms, acted_by = excluded.acted_by
            """).execute(arguments: [like.accountId, like.photoId, like.likedAt, like.updatedAt, like.deletedAt, like.actedMs, like.actedBy])
    }
}
