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

    /// The server's answer to a read of its `photos` (ServerPhotoRow's columns), a JSON array as it came,
    /// checked (`PhotosAnswer.check`): how many rows it holds, and the last one's server time and photo
    /// (where a pull of the photos' rows stops).
    public struct PhotosAnswer: Sendable {
        public let text: String
        public let rows: Int
        public let last: (updatedAt: String?, photoId: String)?

        /// `text` checked by SQLite; `PulledRowsError.malformed` says what in it this version cannot read.
        public static func check(_ db: Database, _ text: String) throws -> PhotosAnswer {
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT CASE WHEN json_valid(?1) THEN json_type(?1) = 'array' ELSE 0 END"), arguments: [text]) == true else {
                throw PulledRowsError.malformed("the answer is not a JSON array")
            }
            let summary = try Row.fetchOne(db.cachedStatement(sql: photosAnswerSummary), arguments: [text])
            if let problem: String = summary?["problem"] { throw PulledRowsError.malformed(problem) }
            let rows: Int = summary?["rows"] ?? 0
            return PhotosAnswer(text: text, rows: rows, last: rows == 0 ? nil : (summary?["updated_at"], summary?["photo_id"] ?? ""))
        }

        private init(text: String, rows: Int, last: (updatedAt: String?, photoId: String)?) {
            self.text = text
            self.rows = rows
            self.last = last
        }
    }

    /// Fills the bare rows (no URLs, no metadata) among the photos of `answers` with their metadata,
    /// keeping what this device set on them (dismissed, the perceptual hash); a photo with its URLs or
    /// metadata keeps its own. With `addingUnknown`, the photos the store does not hold are inserted. A
    /// photo of a source this version does not know (a newer device's) has no place in the store and is
    /// passed over; of two rows for one photo, the first counts.
    ///
    /// SQLite reads the rows out of the answers and stages them (`PulledPage`), so that one statement
    /// fills the page: decoding them with Foundation's JSONDecoder and encoding each photo's URLs again
    /// was a third of the daemon's CPU while a new device filled 100,000 photos (perf, bench scenario 15).
    public static func fillBarePhotos(_ db: Database, _ answers: [PhotosAnswer], fetchedAt: Date, addingUnknown: Bool) throws {
        let answers = answers.filter { $0.rows > 0 }
        if answers.isEmpty { return }
        try PulledPage.photos.create(db)
        for answer in answers {
            try db.cachedStatement(sql: stagePhotosAnswer).execute(arguments: [answer.text])
        }
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

    /// Of an answer (`?1`, a JSON array: checked before, since every function below parses it again —
    /// SQLite 3.40 keeps a parse for one call site only): what in it this version cannot read, or else
    /// how many rows it holds and the last one's server time and photo (where a pull of the photos' rows
    /// stops). A row must be an object naming its photo, each column of the type the server's table gives
    /// it (the types ServerPhotoRow decodes), its URLs an object of text.
    static let photosAnswerSummary = """
        SELECT (SELECT CASE
                    WHEN j.type IS NOT 'object' THEN 'a row is not an object'
                    WHEN json_type(j.value, '$.photo_id') IS NOT 'text' THEN 'a row names no photo'
                    WHEN json_type(j.value, '$.urls') = 'object' AND EXISTS (SELECT 1 FROM json_each(j.value, '$.urls') u WHERE u.type IS NOT 'text') THEN 'a row has URLs that are not text'
                    ELSE 'a row has a column of the wrong type' END
                  FROM json_each(?1) AS j
                  WHERE j.type IS NOT 'object' OR json_type(j.value, '$.photo_id') IS NOT 'text'
                     OR EXISTS (SELECT 1 FROM json_each(j.value) f WHERE
                            f.key IN ('title', 'description', 'author_name', 'author_url', 'color', 'original_sha256', 'original_note', 'updated_at')
                              AND f.type NOT IN ('text', 'null')
                            OR f.key IN ('width', 'height') AND f.type NOT IN ('integer', 'null')
                            OR f.key = 'urls' AND f.type NOT IN ('object', 'null'))
                     OR json_type(j.value, '$.urls') = 'object' AND EXISTS (SELECT 1 FROM json_each(j.value, '$.urls') u WHERE u.type IS NOT 'text')
                  LIMIT 1) AS problem,
          json_array_length(?1) AS rows, ?1 ->> '$[#-1].updated_at' AS updated_at, ?1 ->> '$[#-1].photo_id' AS photo_id
        """

    /// The rows of a checked answer (`?1`) into the staging table, as the store keeps a photo: its URLs as
    /// the object's JSON text, where another device's original is (or why it is not shared) as
    /// PhotoMetadata's JSON (its keys sorted, none null), its colour's bucket (`color_bucket`, Store.swift).
    static let stagePhotosAnswer = """
        INSERT OR IGNORE INTO temp.pulled_photos (id, source, remote_id, title, description, author_name, author_url, width, height, color,
                                                  color_bucket, urls, metadata)
        SELECT id, source, substr(id, length(source) + 2), v ->> 'title', v ->> 'description', v ->> 'author_name', v ->> 'author_url',
               v ->> 'width', v ->> 'height', v ->> 'color', color_bucket(v ->> 'color'),
               CASE WHEN json_type(v, '$.urls') = 'object' THEN json(v -> 'urls') END,
               CASE WHEN (v ->> 'original_sha256') IS NOT NULL OR (v ->> 'original_note') IS NOT NULL
                    THEN json_patch('{}', json_object('original_note', v ->> 'original_note', 'original_sha256', v ->> 'original_sha256')) END
        FROM (SELECT j.value AS v, j.value ->> 'photo_id' AS id,
                     substr(j.value ->> 'photo_id', 1, instr(j.value ->> 'photo_id', ':') - 1) AS source
              FROM json_each(?1) AS j)
        WHERE source IN (\(PhotoSource.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", "))) AND length(id) > length(source) + 1
        """

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

/// A pulled page this version cannot read: what is wrong with it.
public enum PulledRowsError: Error, Equatable, CustomStringConvertible {
    case malformed(String)

    public var description: String {
        switch self {
        case .malformed(let problem): problem
        }
    }
}
