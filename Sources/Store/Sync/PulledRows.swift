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
    /// metadata comes (`fillBarePhotos`). A photo already here is left as it is.
    public static func insertBarePhoto(_ db: Database, source: PhotoSource, remoteId: String, fetchedAt: Date) throws {
        try db.cachedStatement(sql: """
            INSERT INTO photos (id, source, remote_id, fetched_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
            """).execute(arguments: [source.rawValue + ":" + remoteId, source.rawValue, remoteId, fetchedAt])
    }

    /// Bare rows for the photos a page of pulled likes names, in one statement for the page (see
    /// `PulledPage`); a photo already here is left as it is.
    public static func insertBarePhotos(_ db: Database, _ photos: [(source: PhotoSource, remoteId: String)], fetchedAt: Date) throws {
        if photos.isEmpty { return }
        try PulledPage.bare.stage(db, rows: photos.map { [$0.source.rawValue + ":" + $0.remoteId, $0.source.rawValue, $0.remoteId] })
        try db.cachedStatement(sql: """
            INSERT INTO photos (id, source, remote_id, fetched_at) SELECT id, source, remote_id, ? FROM temp.pulled_bare WHERE true
            ON CONFLICT DO NOTHING
            """).execute(arguments: [fetchedAt])
        try PulledPage.bare.clear(db)
    }

    /// Fills the bare rows (no URLs, no metadata) among `photos` with their metadata, keeping what this
    /// device set on them (dismissed, the perceptual hash); a photo with its URLs or metadata keeps its
    /// own. With `addingUnknown`, the photos the store does not hold are inserted. One statement for the
    /// page (`PulledPage`); of two rows for one photo, the first counts.
    public static func fillBarePhotos(_ db: Database, _ photos: [PulledPhoto], fetchedAt: Date, addingUnknown: Bool) throws {
        if photos.isEmpty { return }
        try PulledPage.photos.stage(db, rows: photos.map { photo in
            [photo.id, photo.source.rawValue, photo.remoteId, photo.title, photo.description, photo.authorName, photo.authorUrl,
             photo.width, photo.height, photo.color, photo.colorBucket, photo.urls, photo.metadata]
        })
        try db.cachedStatement(sql: fillStaged).execute(arguments: [fetchedAt])
        if addingUnknown {
            try db.cachedStatement(sql: """
                INSERT INTO photos (id, source, remote_id, title, description, author_name, author_url, width, height, color, color_bucket,
                                    urls, metadata, fetched_at)
                SELECT id, source, remote_id, title, description, author_name, author_url, width, height, color, color_bucket, urls, metadata, ?
                FROM temp.pulled_photos WHERE true
                ON CONFLICT DO NOTHING
                """).execute(arguments: [fetchedAt])
        }
        try PulledPage.photos.clear(db)
    }

    /// The staged photos' metadata into their bare rows. The `IN` has the page's ids lead, each finding its
    /// photo by key: with the join alone SQLite scanned every photo of the store for each page
    /// (`PulledRowsTests` checks the plan).
    static let fillStaged = """
        UPDATE photos SET title = p.title, description = p.description, author_name = p.author_name, author_url = p.author_url,
            width = p.width, height = p.height, color = p.color, color_bucket = p.color_bucket, urls = p.urls, metadata = p.metadata,
            fetched_at = ?
        FROM temp.pulled_photos AS p
        WHERE photos.id IN (SELECT id FROM temp.pulled_photos) AND photos.id = p.id AND photos.urls IS NULL AND photos.metadata IS NULL
        """

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

/// A pulled photo's metadata as the store keeps it (`photos`' columns), for `PulledRows.fillBarePhotos`.
public struct PulledPhoto: Sendable, Equatable {
    public var source: PhotoSource
    public var remoteId: String
    public var title: String?
    public var description: String?
    public var authorName: String?
    public var authorUrl: String?
    public var width: Int?
    public var height: Int?
    public var color: String?
    public var colorBucket: String?
    /// JSON objects' text.
    public var urls: String?
    public var metadata: String?

    public var id: String { source.rawValue + ":" + remoteId }

    public init(
        source: PhotoSource, remoteId: String, title: String?, description: String?, authorName: String?, authorUrl: String?,
        width: Int?, height: Int?, color: String?, colorBucket: String?, urls: String?, metadata: String?
    ) {
        self.source = source
        self.remoteId = remoteId
        self.title = title
        self.description = description
        self.authorName = authorName
        self.authorUrl = authorUrl
        self.width = width
        self.height = height
        self.color = color
        self.colorBucket = colorBucket
        self.urls = urls
        self.metadata = metadata
    }
}
