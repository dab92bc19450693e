import Foundation
import GRDB

/// What the Pictures folder (`pictures.folder`) should hold, read from the library's rows: one entry
/// per liked photo's library file (`My Collection/`) and one per live edit's rendering (`Edits/`).
/// One read transaction for both, so the two lists agree with each other.
public enum PicturesFolderRows {
    public struct Entry: Sendable, Equatable {
        /// The photo's id (`My Collection/`) or the edit's (`Edits/`): the part of the name kept whole.
        public var id: String
        public var author: String?
        public var title: String?
        /// Relative to the data directory, or absolute (an imported photo's own file).
        public var path: String
    }

    /// `(collection, edits)` for `accountId`. Each like looks up its photo's files by the primary key
    /// (`+in_library` keeps SQLite off `photo_files_lru`, which read every library row per like: 1.6 s
    /// for 5,000 likes instead of milliseconds). A liked photo with no library file yet (downloading) has
    /// no entry; of several library files (variants changed over time) the largest is the one.
    public static func entries(_ db: Database, accountId: String) throws -> (collection: [Entry], edits: [Entry]) {
        let collection = try Row.fetchAll(db, sql: """
            SELECT p.id, p.author_name, coalesce(nullif(p.title, ''), p.alt_description) AS title,
                   (SELECT f.path FROM photo_files f
                    WHERE f.photo_id = l.photo_id AND +f.in_library = 1 AND f.variant NOT LIKE 'edit:%'
                    ORDER BY f.bytes DESC, f.variant LIMIT 1) AS path
            FROM likes l JOIN photos p ON p.id = l.photo_id
            WHERE l.account_id = ? AND l.deleted_at IS NULL
            """, arguments: [accountId]).compactMap(entry)
        let edits = try Row.fetchAll(db, sql: """
            SELECT e.id, p.author_name, coalesce(nullif(p.title, ''), p.alt_description) AS title, f.path
            FROM edits e JOIN photos p ON p.id = e.photo_id
            JOIN photo_files f ON f.photo_id = e.photo_id AND f.variant = 'edit:' || e.id
            WHERE e.account_id = ? AND e.deleted_at IS NULL
            """, arguments: [accountId]).compactMap(entry)
        return (collection, edits)
    }

    private static func entry(_ row: Row) -> Entry? {
        guard let path: String = row["path"] else { return nil }
        return Entry(id: row["id"], author: row["author_name"], title: row["title"], path: path)
    }
}
