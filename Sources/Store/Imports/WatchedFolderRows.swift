import Foundation
import GRDB
import Shared

/// The folders splashd watches for new photos (`splashctl import DIR --watch`), kept across restarts.
public enum WatchedFolderRows {
    /// Watches `path` from now (again: its settings replaced); `scannedAt` is when its files were last
    /// all seen.
    public static func watch(_ db: Database, path: String, recursive: Bool, now: Date) throws {
        try db.execute(sql: """
            INSERT INTO watched_folders (path, recursive, added_at, scanned_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (path) DO UPDATE SET recursive = excluded.recursive, scanned_at = excluded.scanned_at
            """, arguments: [path, recursive, now, now])
    }

    /// False when `path` was not watched.
    public static func unwatch(_ db: Database, path: String) throws -> Bool {
        try db.execute(sql: "DELETE FROM watched_folders WHERE path = ?", arguments: [path])
        return db.changesCount > 0
    }

    public static func all(_ db: Database) throws -> [WatchedFolder] {
        try Row.fetchAll(db, sql: "SELECT path, recursive, added_at, scanned_at FROM watched_folders ORDER BY path").map {
            WatchedFolder(path: $0["path"], recursive: $0["recursive"], since: $0["added_at"], scannedAt: $0["scanned_at"])
        }
    }

    /// Every file of the folder changed before `at` has been looked at.
    public static func scanned(_ db: Database, path: String, at: Date) throws {
        try db.execute(sql: "UPDATE watched_folders SET scanned_at = max(scanned_at, ?) WHERE path = ?", arguments: [at, path])
    }
}
