import Foundation
import GRDB

/// Queries over `photo_files` for the image queue, the cache and `photos.show`. A row exists only for a
/// complete, verified file that has been renamed into place; `.part` files are never recorded.
public enum PhotoFileStore {
    /// A liked photo whose library file (of one variant) is not recorded yet.
    public struct Missing: Sendable, Equatable {
        public var photoId: String
        public var source: String
        public var remoteId: String
        /// `photos.urls`: a JSON object variant → URL (nil when the photo has none).
        public var urls: String?
    }

    /// Library photos of `accountId` — liked, or with a live edit — with no row for `variant`, most
    /// recently liked or edited first so that what a person just chose arrives first. Local and Google
    /// photos are files already (imported) and never downloaded.
    ///
    /// The image queue asks after every finished transfer, so this must cost what it returns, not what
    /// the library holds: likes and edits are each walked newest first (likes through `likes_recent`)
    /// and stop at `limit` missing; the two are merged here. (One query over their union grouped every
    /// like the account has, each time: the pull's time grew with the library.) The merge is exact: a
    /// photo among the newest `limit` by its later choice is among the newest `limit` of the side that
    /// choice came from.
    public static func missing(_ db: Database, accountId: String, variant: String, limit: Int = 10_000) throws -> [Missing] {
        func newest(_ sql: String) throws -> [(missing: Missing, chosenAt: Date)] {
            try Row.fetchAll(db.cachedStatement(sql: sql), arguments: [accountId, variant, limit]).map {
                (Missing(photoId: $0["id"], source: $0["source"], remoteId: $0["remote_id"], urls: $0["urls"]), $0["chosen_at"])
            }
        }
        let liked = try newest(newestLikedMissing)
        let edited = try newest(newestEditedMissing)
        var chosen: [String: (missing: Missing, chosenAt: Date)] = [:]
        for entry in liked + edited where (chosen[entry.missing.photoId]?.chosenAt ?? .distantPast) < entry.chosenAt {
            chosen[entry.missing.photoId] = entry
        }
        return chosen.values
            .sorted { ($0.chosenAt, $0.missing.photoId) > ($1.chosenAt, $1.missing.photoId) }
            .prefix(limit).map(\.missing)
    }

    /// Liked photos of an account (?) without a file of a variant (?), newest like first, at most (?).
    /// A photo without URLs is not one yet: a pulled like's photo is bare until the pull's pass over
    /// the photos' rows fills it, and fetching it then would only fail and wait for a retry.
    static let newestLikedMissing = """
        SELECT p.id, p.source, p.remote_id, p.urls, l.liked_at AS chosen_at
        FROM likes l INDEXED BY likes_recent JOIN photos p ON p.id = l.photo_id
        WHERE l.account_id = ? AND l.deleted_at IS NULL AND p.source NOT IN ('local', 'google') AND p.urls IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM photo_files f WHERE f.photo_id = l.photo_id AND f.variant = ?)
        ORDER BY l.liked_at DESC LIMIT ?
        """

    /// Edited photos of an account (?) without a file of a variant (?), newest edit first, at most (?);
    /// those with URLs, as above.
    static let newestEditedMissing = """
        SELECT p.id, p.source, p.remote_id, p.urls, max(e.created_at) AS chosen_at
        FROM edits e JOIN photos p ON p.id = e.photo_id
        WHERE e.account_id = ? AND e.deleted_at IS NULL AND p.source NOT IN ('local', 'google') AND p.urls IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM photo_files f WHERE f.photo_id = e.photo_id AND f.variant = ?)
        GROUP BY p.id ORDER BY chosen_at DESC LIMIT ?
        """

    /// Downloaded library files of photos with no perceptual hash yet: arrivals a stop or a crash kept
    /// the duplicate scanner from hashing. Paths relative to the data directory.
    public static func unhashed(_ db: Database) throws -> [(photoId: String, path: String)] {
        try Row.fetchAll(db, sql: """
            SELECT f.photo_id, f.path FROM photo_files f JOIN photos p ON p.id = f.photo_id
            WHERE f.in_library = 1 AND p.phash IS NULL AND p.source NOT IN ('local', 'google')
              AND f.variant NOT LIKE 'edit:%' AND f.path NOT LIKE '/%'
            """).map { ($0["photo_id"], $0["path"]) }
    }

    /// One photo as a download job, whether or not it is in the library (an edit needs its original).
    public static func job(_ db: Database, photoId: String) throws -> Missing? {
        try Row.fetchOne(db, sql: "SELECT id, source, remote_id, urls FROM photos WHERE id = ?", arguments: [photoId]).map {
            Missing(photoId: $0["id"], source: $0["source"], remoteId: $0["remote_id"], urls: $0["urls"])
        }
    }

    public struct File: Sendable, Equatable {
        public var photoId: String
        public var variant: String
        /// Relative to the data directory (library) or the cache directory (cache).
        public var path: String
        public var inLibrary: Bool
        public var bytes: Int64
        public var checksum: String?
        public var createdAt: Date
        public var lastAccessAt: Date

        public init(
            photoId: String, variant: String, path: String, inLibrary: Bool, bytes: Int64, checksum: String?,
            createdAt: Date, lastAccessAt: Date
        ) {
            self.photoId = photoId
            self.variant = variant
            self.path = path
            self.inLibrary = inLibrary
            self.bytes = bytes
            self.checksum = checksum
            self.createdAt = createdAt
            self.lastAccessAt = lastAccessAt
        }

        /// Where a move between the library and the cache puts the file, relative to the other directory.
        public var movedPath: String {
            inLibrary ? ImagePaths.cache(forLibrary: path) : ImagePaths.library(forCache: path)
        }

        init(row: Row) {
            self.init(
                photoId: row["photo_id"], variant: row["variant"], path: row["path"], inLibrary: row["in_library"],
                bytes: row["bytes"], checksum: row["checksum"], createdAt: row["created_at"], lastAccessAt: row["last_access_at"])
        }
    }

    /// Records a finished file (replacing an older row of the same variant).
    public static func record(_ db: Database, _ file: File) throws {
        // Cached: a pull records a thousand files, a batch at a time.
        try db.cachedStatement(sql: """
            INSERT INTO photo_files (photo_id, variant, path, in_library, bytes, checksum, created_at, last_access_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (photo_id, variant) DO UPDATE SET
                path = excluded.path, in_library = excluded.in_library, bytes = excluded.bytes, checksum = excluded.checksum,
                created_at = excluded.created_at, last_access_at = excluded.last_access_at
            """).execute(arguments: [file.photoId, file.variant, file.path, file.inLibrary, file.bytes, file.checksum, file.createdAt, file.lastAccessAt])
    }

    /// Files in the daemon's own directories recorded at or after `since`, each with the checksum its
    /// bytes must have: what a power cut during a run that started then could have left torn
    /// (`FileAudit`). A path outside them (an imported file where it lies) is the person's, not ours to
    /// judge.
    public static func recordedSince(_ db: Database, _ since: Date) throws -> [File] {
        try Row.fetchAll(db, sql: """
            SELECT * FROM photo_files WHERE created_at >= ? AND checksum IS NOT NULL AND path NOT LIKE '/%'
            """, arguments: [since]).map(File.init(row:))
    }

    /// Every path (relative to the data directory) a row says is in the library.
    public static func libraryPaths(_ db: Database) throws -> Set<String> {
        Set(try String.fetchAll(db, sql: "SELECT path FROM photo_files WHERE in_library = 1"))
    }

    /// A photo of the account's (liked, or with a live edit) whose only copy is a file on another device,
    /// and no file here: the SHA-256 its row names (nil: a local photo whose id names the hash).
    public struct MissingOriginal: Sendable, Equatable {
        public var photoId: String
        public var source: String
        public var sha256: String?
    }

    /// Photos imported from a folder or picked from Google Photos on another device that the account
    /// likes or edits and this machine has no file for, and whose original is shared (no note saying
    /// why not; a Google photo's row names its file's hash).
    public static func originalsWithoutFile(_ db: Database, accountId: String, limit: Int) throws -> [MissingOriginal] {
        try Row.fetchAll(db, sql: """
            SELECT id, source, sha256 FROM (
              SELECT p.id, p.source,
                CASE WHEN json_valid(p.metadata) THEN json_extract(p.metadata, '$.original_sha256') END AS sha256,
                CASE WHEN json_valid(p.metadata) THEN json_extract(p.metadata, '$.original_note') END AS note
              FROM photos p
              WHERE p.source IN ('local', 'google') AND NOT EXISTS (SELECT 1 FROM photo_files f WHERE f.photo_id = p.id)
                AND (EXISTS (SELECT 1 FROM likes l WHERE l.account_id = ? AND l.photo_id = p.id AND l.deleted_at IS NULL)
                     OR EXISTS (SELECT 1 FROM edits e WHERE e.account_id = ? AND e.photo_id = p.id AND e.deleted_at IS NULL)))
            WHERE note IS NULL AND (source = 'local' OR sha256 IS NOT NULL)
            LIMIT ?
            """, arguments: [accountId, accountId, limit]).map { MissingOriginal(photoId: $0["id"], source: $0["source"], sha256: $0["sha256"]) }
    }

    public static func files(_ db: Database, photoId: String) throws -> [File] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM photo_files WHERE photo_id = ? ORDER BY in_library DESC, variant"), arguments: [photoId]
        ).map(File.init(row:))
    }

    /// `files` of a photo the store holds; nil when it holds no such photo. One prepared statement,
    /// kept: the gallery asks this for every picture a grid shows.
    public static func files(_ db: Database, ofPhoto photoId: String) throws -> [File]? {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT f.* FROM photos p LEFT JOIN photo_files f ON f.photo_id = p.id WHERE p.id = ?
            ORDER BY f.in_library DESC, f.variant
            """), arguments: [photoId])
        guard !rows.isEmpty else { return nil }
        // A photo without files is one row of NULLs.
        return rows.filter { ($0["photo_id"] as String?) != nil }.map(File.init(row:))
    }

    /// Every row the library ↔ cache moves handle: downloads, not edits' renderings nor imported files
    /// (a local file where it lies, a photo picked from Google Photos: both are the person's own).
    public static func movable(_ db: Database) throws -> [File] {
        try Row.fetchAll(db, sql: """
            SELECT * FROM photo_files WHERE variant NOT LIKE 'edit:%' AND path NOT LIKE '/%' AND photo_id NOT LIKE 'google:%'
            """).map(File.init(row:))
    }

    /// Library files (not edits) of photos nobody here likes any more and that have no live edit: they
    /// belong in the cache now.
    public static func unpinned(_ db: Database, limit: Int = 500) throws -> [File] {
        try Row.fetchAll(db, sql: """
            SELECT f.* FROM photo_files f
            WHERE f.in_library = 1 AND f.variant NOT LIKE 'edit:%'
              AND f.path NOT LIKE '/%'  -- an imported file is the person's own: never moved, never evicted
              AND f.photo_id NOT LIKE 'google:%'  -- nor is a photo picked from Google Photos
              AND NOT EXISTS (SELECT 1 FROM likes l WHERE l.photo_id = f.photo_id AND l.deleted_at IS NULL)
              AND NOT EXISTS (SELECT 1 FROM edits e WHERE e.photo_id = f.photo_id AND e.deleted_at IS NULL)
            LIMIT ?
            """, arguments: [limit]).map(File.init(row:))
    }

    /// Cache files of `variant` for photos `accountId` likes or has edited: they belong in the library again.
    public static func repinnable(_ db: Database, accountId: String, variant: String, limit: Int = 500) throws -> [File] {
        try Row.fetchAll(db, sql: """
            SELECT f.* FROM photo_files f
            WHERE f.in_library = 0 AND f.variant = ?
              AND (EXISTS (SELECT 1 FROM likes l WHERE l.photo_id = f.photo_id AND l.account_id = ? AND l.deleted_at IS NULL)
                   OR EXISTS (SELECT 1 FROM edits e WHERE e.photo_id = f.photo_id AND e.account_id = ? AND e.deleted_at IS NULL))
            LIMIT ?
            """, arguments: [variant, accountId, accountId, limit]).map(File.init(row:))
    }

    /// Points a row at the file's new place (library or cache); it moves to the back of the eviction line.
    public static func moved(_ db: Database, _ file: File, to path: String, inLibrary: Bool, now: Date) throws {
        try db.execute(sql: """
            UPDATE photo_files SET path = ?, in_library = ?, last_access_at = ? WHERE photo_id = ? AND variant = ?
            """, arguments: [path, inLibrary, now, file.photoId, file.variant])
    }

    /// Forgets a row whose file is gone from both places.
    public static func remove(_ db: Database, _ file: File) throws {
        try db.execute(sql: "DELETE FROM photo_files WHERE photo_id = ? AND variant = ?", arguments: [file.photoId, file.variant])
    }

    /// A file was looked at: it moves to the back of the eviction line.
    /// Forgets an edit's rendering (its file is gone or going).
    public static func removeEdit(_ db: Database, photoId: String, editId: String) throws {
        try db.execute(sql: "DELETE FROM photo_files WHERE photo_id = ? AND variant = ?", arguments: [photoId, "edit:\(editId)"])
    }

    public static func touch(_ db: Database, photoId: String, now: Date) throws {
        try db.execute(sql: "UPDATE photo_files SET last_access_at = ? WHERE photo_id = ?", arguments: [now, photoId])
    }

    public struct Usage: Sendable, Equatable {
        public var libraryBytes: Int64 = 0
        public var libraryFiles = 0
        public var cacheBytes: Int64 = 0
        public var cacheFiles = 0
        public init() {}
    }

    public static func usage(_ db: Database) throws -> Usage {
        var usage = Usage()
        for row in try Row.fetchAll(db, sql: "SELECT in_library, count(*) AS n, coalesce(sum(bytes), 0) AS b FROM photo_files GROUP BY in_library") {
            if row["in_library"] as Bool {
                usage.libraryFiles = row["n"]
                usage.libraryBytes = row["b"]
            } else {
                usage.cacheFiles = row["n"]
                usage.cacheBytes = row["b"]
            }
        }
        return usage
    }

    /// Cache rows (never library ones), least recently used first, that must go for the cache to fit
    /// in `maxBytes`.
    public static func evictionCandidates(_ db: Database, maxBytes: Int64) throws -> [File] {
        var excess = try usage(db).cacheBytes - maxBytes
        guard excess > 0 else { return [] }
        var chosen: [File] = []
        let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM photo_files WHERE in_library = 0 ORDER BY last_access_at, created_at")
        while excess > 0, let row = try cursor.next() {
            let file = File(row: row)
            chosen.append(file)
            excess -= file.bytes
        }
        return chosen
    }

    /// Deletes the rows of evicted files, only while they are still cache rows of the same path (a
    /// photo liked meanwhile may have been given a library file under the same key).
    public static func forget(_ db: Database, _ files: [File]) throws {
        for file in files {
            try db.execute(sql: "DELETE FROM photo_files WHERE photo_id = ? AND variant = ? AND in_library = 0 AND path = ?",
                           arguments: [file.photoId, file.variant, file.path])
        }
    }
}
