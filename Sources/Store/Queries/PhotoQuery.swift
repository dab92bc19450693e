import Foundation
import GRDB
import Shared

/// `photos.list` as SQL. Every filter is a bound argument; the FTS query is built from quoted tokens,
/// so no input can change the statement's shape or trip FTS5's query syntax.
public struct PhotoQuery: Sendable {
    public var request: PhotosListRequest
    /// Whose likes count as "liked" ('' for likes made signed out).
    public var accountId: String

    public init(_ request: PhotosListRequest, accountId: String) {
        self.request = request
        self.accountId = accountId
    }

    public func fetch(_ db: Database) throws -> PhotosListResult {
        let limit = request.limit ?? PhotosListRequest.defaultLimit
        let offset = request.offset ?? 0
        let (whereSQL, arguments) = filter()
        let from = """
            FROM photos p
            LEFT JOIN likes l ON l.photo_id = p.id AND l.account_id = ? AND l.deleted_at IS NULL
            """
        let rows = try Row.fetchAll(db, sql: """
            \(Self.summaryColumns)
            \(from)
            \(whereSQL)
            ORDER BY \(orderSQL())
            LIMIT ? OFFSET ?
            """, arguments: [accountId] + arguments + [limit, offset])
        let total = try Int.fetchOne(db, sql: "SELECT count(*) \(from) \(whereSQL)", arguments: [accountId] + arguments) ?? 0
        return PhotosListResult(photos: rows.map(Self.summary), total: total, limit: limit, offset: offset)
    }

    /// The summaries of these photos, in the given order, leaving out unknown and dismissed ones
    /// (search results, feeds and random picks never show a dismissed photo).
    public static func summaries(_ db: Database, ids: [String], accountId: String) throws -> [PhotoSummary] {
        guard !ids.isEmpty else { return [] }
        let rows = try Row.fetchAll(db, sql: """
            \(Self.summaryColumns)
            FROM photos p
            LEFT JOIN likes l ON l.photo_id = p.id AND l.account_id = ? AND l.deleted_at IS NULL
            WHERE p.id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ","))) AND p.dismissed_at IS NULL
            """, arguments: StatementArguments([accountId] + ids))
        let byID = Dictionary(rows.map { (($0["id"] as String), summary($0)) }, uniquingKeysWith: { first, _ in first })
        return ids.compactMap { byID[$0] }
    }

    private func filter() -> (String, StatementArguments) {
        var clauses: [String] = []
        var arguments = StatementArguments()
        if let liked = request.liked {
            clauses.append(liked ? "l.liked_at IS NOT NULL" : "l.liked_at IS NULL")
        }
        if let edited = request.edited {
            clauses.append((edited ? "" : "NOT ") + "EXISTS (SELECT 1 FROM edits e WHERE e.photo_id = p.id AND e.deleted_at IS NULL)")
        }
        clauses.append(request.dismissed == true ? "p.dismissed_at IS NOT NULL" : "p.dismissed_at IS NULL")
        if let source = request.source {
            clauses.append("p.source = ?")
            arguments += [source.rawValue]
        }
        if let color = request.color {
            clauses.append("p.color_bucket = ?")
            arguments += [color]
        }
        if let text = request.text, let match = Self.ftsMatch(text) {
            clauses.append("p.rowid IN (SELECT rowid FROM photos_fts WHERE photos_fts MATCH ?)")
            arguments += [match]
        }
        return ("WHERE " + clauses.joined(separator: " AND "), arguments)
    }

    private func orderSQL() -> String {
        switch request.sort ?? .fetchedDescending {
        case .createdAscending: "p.created_at ASC NULLS LAST, p.id"
        case .createdDescending: "p.created_at DESC NULLS LAST, p.id"
        case .likedAscending: "l.liked_at ASC NULLS LAST, p.id"
        case .likedDescending: "l.liked_at DESC NULLS LAST, p.id"
        case .fetchedAscending: "p.fetched_at ASC, p.id"
        case .fetchedDescending: "p.fetched_at DESC, p.id"
        }
    }

    /// Each word becomes a quoted prefix term (`"blue"*`), all of them required.
    static func ftsMatch(_ text: String) -> String? {
        let terms = text.split(whereSeparator: { $0.isWhitespace || $0.isPunctuation && $0 != "_" })
            .map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }
        return terms.isEmpty ? nil : terms.joined(separator: " ")
    }

    /// What `summary(_:)` reads; both queries select exactly this.
    static let summaryColumns = """
        SELECT p.id, p.source, p.title, p.author_name, p.width, p.height, p.color, p.color_bucket,
               p.created_at, p.fetched_at, p.dismissed_at, l.liked_at,
               (SELECT count(*) FROM edits e WHERE e.photo_id = p.id AND e.deleted_at IS NULL) AS edit_count
        """

    private static func summary(_ row: Row) -> PhotoSummary {
        PhotoSummary(
            id: row["id"], source: PhotoSource(rawValue: row["source"]) ?? .local, title: row["title"],
            author: row["author_name"], width: row["width"], height: row["height"], color: row["color"],
            colorBucket: row["color_bucket"], createdAt: row["created_at"], fetchedAt: row["fetched_at"],
            likedAt: row["liked_at"], editCount: row["edit_count"], dismissedAt: row["dismissed_at"])
    }
}
