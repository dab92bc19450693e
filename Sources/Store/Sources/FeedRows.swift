import Foundation
import GRDB
import Shared

/// Followed feeds (`feeds`): a topic or a search, how many photos to keep, when last refreshed.
public enum FeedRows {
    public struct Feed: Sendable {
        public var key: FeedKey
        public var keep: Int
        public var refreshedAt: Date?
    }

    /// Follows a feed, or changes how many photos an already followed one keeps.
    public static func follow(_ db: Database, _ feed: FeedKey, keep: Int, now: Date) throws {
        try db.execute(sql: """
            INSERT INTO feeds (kind, source, value, keep, created_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (kind, source, value) DO UPDATE SET keep = excluded.keep
            """, arguments: [feed.kind.rawValue, (feed.source ?? .unsplash).rawValue, feed.value, keep, now])
    }

    /// Whether the feed was followed.
    public static func unfollow(_ db: Database, _ feed: FeedKey) throws -> Bool {
        try db.execute(
            sql: "DELETE FROM feeds WHERE kind = ? AND source = ? AND value = ?",
            arguments: [feed.kind.rawValue, (feed.source ?? .unsplash).rawValue, feed.value])
        return db.changesCount > 0
    }

    /// Every followed feed, in the order followed.
    public static func all(_ db: Database) throws -> [Feed] {
        try Row.fetchAll(db, sql: "SELECT kind, source, value, keep, refreshed_at FROM feeds ORDER BY created_at").map { row in
            Feed(
                key: FeedKey(kind: FeedKey.Kind(rawValue: row["kind"]) ?? .search, value: row["value"], source: PhotoSource(rawValue: row["source"])),
                keep: row["keep"], refreshedAt: row["refreshed_at"])
        }
    }

    public static func markRefreshed(_ db: Database, _ feed: FeedKey, at date: Date) throws {
        try db.execute(
            sql: "UPDATE feeds SET refreshed_at = ? WHERE kind = ? AND source = ? AND value = ?",
            arguments: [date, feed.kind.rawValue, (feed.source ?? .unsplash).rawValue, feed.value])
    }
}
