import Foundation
import GRDB
import Shared

/// Searches and their result pages, kept so the same search answers offline, and so `search history`
/// can list them. A search is keyed by its source and canonical parameters (every one but the page).
/// `last_run_at` is when its results were last fetched; `asked_at` when a person last asked for it.
public enum SearchPages {
    /// Records one page of a search's results, ranked, replacing that page as it was.
    public static func remember(
        _ db: Database, source: PhotoSource, query: String, key: String, page: Int, total: Int, ids: [String], now: Date
    ) throws {
        try db.execute(sql: """
            INSERT INTO searches (source, query, params_key, total, created_at, last_run_at, asked_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (source, params_key) DO UPDATE SET total = excluded.total, last_run_at = excluded.last_run_at,
                asked_at = excluded.asked_at
            """, arguments: [source.rawValue, query, key, total, now, now, now])
        let searchID = try Int64.fetchOne(db, sql: "SELECT id FROM searches WHERE source = ? AND params_key = ?", arguments: [source.rawValue, key])!
        try db.execute(sql: "DELETE FROM search_results WHERE search_id = ? AND page = ?", arguments: [searchID, page])
        for (rank, id) in ids.enumerated() {
            try db.execute(sql: "INSERT INTO search_results (search_id, page, rank, photo_id) VALUES (?, ?, ?, ?)", arguments: [searchID, page, rank, id])
        }
    }

    public struct Page: Sendable {
        public var ids: [String]
        public var total: Int?
        public var lastRunAt: Date
    }

    /// A page kept from an earlier run of the search; nil if the search or the page was never run.
    public static func page(_ db: Database, source: PhotoSource, key: String, page: Int) throws -> Page? {
        guard let row = try Row.fetchOne(
            db, sql: "SELECT id, total, last_run_at FROM searches WHERE source = ? AND params_key = ?", arguments: [source.rawValue, key])
        else { return nil }
        let ids = try String.fetchAll(
            db, sql: "SELECT photo_id FROM search_results WHERE search_id = ? AND page = ? ORDER BY rank", arguments: [row["id"] as Int64, page])
        guard !ids.isEmpty else { return nil }
        return Page(ids: ids, total: row["total"], lastRunAt: row["last_run_at"])
    }

    /// A person asked for the search again and the store answered: it moves to the top of the history.
    public static func markAsked(_ db: Database, source: PhotoSource, key: String, now: Date) throws {
        try db.execute(sql: "UPDATE searches SET asked_at = ? WHERE source = ? AND params_key = ?", arguments: [now, source.rawValue, key])
    }

    /// How many photos a search's page holds (0 if it was never run).
    public static func count(_ db: Database, source: PhotoSource, key: String, page: Int) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT count(*) FROM search_results r JOIN searches s ON s.id = r.search_id
            WHERE s.source = ? AND s.params_key = ? AND r.page = ?
            """, arguments: [source.rawValue, key, page]) ?? 0
    }

    public struct Run: Sendable {
        public var key: String
        public var total: Int?
        /// When a person last asked for it.
        public var lastRunAt: Date
    }

    /// The source's most recently asked searches, newest first.
    public static func recent(_ db: Database, source: PhotoSource, limit: Int) throws -> [Run] {
        try Row.fetchAll(db, sql: """
            SELECT params_key, total, asked_at FROM searches WHERE source = ? ORDER BY asked_at DESC LIMIT ?
            """, arguments: [source.rawValue, limit]).map { Run(key: $0["params_key"], total: $0["total"], lastRunAt: $0["asked_at"]) }
    }
}
