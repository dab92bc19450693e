import Foundation
import GRDB
import Shared

/// `photos.list` as SQL. Every filter is a bound argument; the FTS query is built from quoted tokens,
/// so no input can change the statement's shape or trip FTS5's query syntax.
///
/// Every statement searches an index (SchemaV4): a list of liked photos is walked
/// from the likes' own indexes, which carry the photo's colour and dismissed state; any other list from
/// the photos' indexes. A count never reads the whole table: with no filter but the dismissed state it
/// is the kept counters; a negative filter ("not liked", "not edited") is the count without it less
/// the count with it; a text match alone is the full-text index's count less its dismissed photos. A
/// page of a text match alone walks the sort key's index where the matches are dense enough for that to
/// cost less than looking each one up (`PhotoQueryRun.walkedPage`). A sort by like time over photos not
/// all liked is the liked ones in like order, then the rest by id, paged across the two.
public struct PhotoQuery: Sendable {
    public var request: PhotosListRequest
    /// Whose likes count as "liked" ('' for likes made signed out).
    public var accountId: String

    public init(_ request: PhotosListRequest, accountId: String) {
        self.request = request
        self.accountId = accountId
    }

    /// The page already in JSON: SQLite writes each photo's object (`summaryJSON`). Foundation's encoder
    /// spent half a page's time (perf, 100,000 photos); a page's round trip went from 1.55 to 0.68–0.78 ms
    /// measured side by side on one machine.
    public func fetch(_ db: Database) throws -> EncodedResult<PhotosListResult> {
        let limit = request.limit ?? PhotosListRequest.defaultLimit
        let offset = request.offset ?? 0
        let filters = PhotoFilters(request)
        var run = PhotoQueryRun(db: db, accountId: accountId, explain: request.explain == true)
        let rows = try page(&run, filters, limit: limit, offset: offset)
        let total = try run.count(filters)
        try run.finish()
        return try PhotosListResult.encoded(
            photos: rows.map { $0[0] }, total: total, limit: limit, offset: offset, statements: run.statements)
    }

    private func page(_ run: inout PhotoQueryRun, _ filters: PhotoFilters, limit: Int, offset: Int) throws -> [Row] {
        // Liked photos come newest like first unless asked otherwise ("My Collection", as the apps showed
        // it): that order is the likes' index, where a photo's own times mean reading every liked photo.
        let sort = request.sort ?? (filters.liked == true ? .likedDescending : .fetchedDescending)
        guard sort == .likedAscending || sort == .likedDescending, filters.liked != true else {
            if let (key, descending) = Self.photoKey(sort),
               let walked = try run.walkedPage(filters, key: key, descending: descending, order: Self.order(sort), limit: limit, offset: offset) {
                return walked
            }
            return try run.page(filters, order: Self.order(sort), limit: limit, offset: offset)
        }
        // Photos not liked have no like time: they come after the liked ones, by id.
        var unliked = filters
        unliked.liked = false
        if filters.liked == false { return try run.page(unliked, order: "p.id", limit: limit, offset: offset) }
        var liked = filters
        liked.liked = true
        let likedCount = try run.count(liked)
        let head = offset < likedCount ? try run.page(liked, order: Self.order(sort), limit: limit, offset: offset) : []
        guard head.count < limit else { return head }
        return head + (try run.page(unliked, order: "p.id", limit: limit - head.count, offset: max(0, offset - likedCount)))
    }

    /// The photo's own column a sort walks, with its direction; nil for the like time.
    private static func photoKey(_ sort: PhotosListRequest.Sort) -> (String, Bool)? {
        switch sort {
        case .createdAscending: ("created_at", false)
        case .createdDescending: ("created_at", true)
        case .fetchedAscending: ("fetched_at", false)
        case .fetchedDescending: ("fetched_at", true)
        case .likedAscending, .likedDescending: nil
        }
    }

    private static func order(_ sort: PhotosListRequest.Sort) -> String {
        switch sort {
        case .createdAscending: "p.created_at ASC NULLS LAST, p.id"
        case .createdDescending: "p.created_at DESC NULLS LAST, p.id"
        case .likedAscending: "l.liked_at ASC, p.id"
        case .likedDescending: "l.liked_at DESC, p.id"
        case .fetchedAscending: "p.fetched_at ASC, p.id"
        case .fetchedDescending: "p.fetched_at DESC, p.id"
        }
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
        let byID = Dictionary(rows.map { (($0[0] as String), summary($0)) }, uniquingKeysWith: { first, _ in first })
        return ids.compactMap { byID[$0] }
    }

    /// Each word becomes a quoted prefix term (`"blue"*`), all of them required.
    static func ftsMatch(_ text: String) -> String? {
        let terms = text.split(whereSeparator: { $0.isWhitespace || $0.isPunctuation && $0 != "_" })
            .map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }
        return terms.isEmpty ? nil : terms.joined(separator: " ")
    }

    /// Each photo as the one JSON object a `PhotoSummary` encodes to (`JSONCoding.encoder()`), written by
    /// SQLite's JSON functions: the keys in the encoder's order (sorted, snake case), dates as its ISO 8601
    /// to the second (`strftime` reads the store's `YYYY-MM-DD HH:MM:SS.SSS` and truncates, as the encoder
    /// does), and an absent value left out rather than null, as the encoder does, by `json_patch`'s merge
    /// (RFC 7396: a null in the patch adds nothing). The store tests hold the two side by side, byte for
    /// byte, for awkward values. Every page of `photos.list` selects exactly this.
    static let summaryJSON = """
        SELECT json_patch('{}', json_object(
            'author', p.author_name, 'color', p.color, 'color_bucket', p.color_bucket,
            'created_at', strftime('%Y-%m-%dT%H:%M:%SZ', p.created_at),
            'dismissed_at', strftime('%Y-%m-%dT%H:%M:%SZ', p.dismissed_at),
            'edit_count', (SELECT count(*) FROM edits e WHERE e.photo_id = p.id AND e.deleted_at IS NULL),
            'fetched_at', strftime('%Y-%m-%dT%H:%M:%SZ', p.fetched_at), 'height', p.height, 'id', p.id,
            'liked_at', strftime('%Y-%m-%dT%H:%M:%SZ', l.liked_at), 'source', p.source, 'title', p.title,
            'width', p.width)) AS summary
        """

    /// What `summary(_:)` reads (search results, feeds and random picks, a few photos at a time).
    static let summaryColumns = """
        SELECT p.id, p.source, p.title, p.author_name, p.width, p.height, p.color, p.color_bucket,
               p.created_at, p.fetched_at, p.dismissed_at, l.liked_at,
               (SELECT count(*) FROM edits e WHERE e.photo_id = p.id AND e.deleted_at IS NULL) AS edit_count
        """

    /// Read by position, in `summaryColumns`' order: GRDB finds a column by name with a lowercased
    /// comparison against every column, which was a twentieth of a page's time.
    private static func summary(_ row: Row) -> PhotoSummary {
        PhotoSummary(
            id: row[0], source: PhotoSource(rawValue: row[1]) ?? .local, title: row[2],
            author: row[3], width: row[4], height: row[5], color: row[6],
            colorBucket: row[7], createdAt: row[8], fetchedAt: row[9],
            likedAt: row[11], editCount: row[12], dismissedAt: row[10])
    }
}
