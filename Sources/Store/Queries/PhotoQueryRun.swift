import Foundation
import GRDB
import Shared

/// The statements one `photos.list` runs: pages and counts for sets of filters, each count run once,
/// each statement recorded with its plan when the request asks to explain.
struct PhotoQueryRun {
    let db: Database
    let accountId: String
    private(set) var statements: [QueryStatement]?
    private var counted: [PhotoFilters: Int] = [:]
    /// The text match whose photos `temp.photo_match` holds, and how many they are.
    private var held: (match: String, count: Int)?

    init(db: Database, accountId: String, explain: Bool) {
        self.db = db
        self.accountId = accountId
        statements = explain ? [] : nil
    }

    /// A page of photos matching `filters`, liked ones walked from the likes' indexes.
    mutating func page(_ filters: PhotoFilters, order: String, limit: Int, offset: Int) throws -> [Row] {
        try holdMatch(filters)
        let (from, arguments) = filters.liked == true ? likedFrom(filters, joinPhotos: true) : photosFrom(filters, joinLikes: true)
        return try rows("\(PhotoQuery.summaryJSON)\n\(from)\nORDER BY \(order)\nLIMIT ? OFFSET ?", arguments + [limit, offset])
    }

    /// A page of a text match alone, walked in `key`'s order from the photos' index of the shown ones, each
    /// photo tested against the match, instead of every matching photo looked up and sorted: at 1,000,000
    /// photos and 10,870 matches, 50 rows came after ~4,600 index entries (~0.1 µs each) where the
    /// lookups took ~2 µs a match. nil for any other filter than a text match alone over shown photos,
    /// and when the walk does not pay or did not fill the page; the caller then asks `page`.
    ///
    /// The walk is bounded so that a match clustered far along the order (photos fetched long ago) costs
    /// at most a fraction of the lookups: it covers the first `budget` shown photos, twice the entries
    /// the page needs were the matches spread evenly, found as the key of the budget's last entry. Every
    /// photo past that key sorts after every photo up to it (whatever their ids), so a full page from
    /// within the bound is the page. Photos with no key sort last either way and are outside a bound.
    mutating func walkedPage(_ filters: PhotoFilters, key: String, descending: Bool, order: String, limit: Int, offset: Int) throws -> [Row]? {
        guard filters.isTextAlone, !filters.dismissed else { return nil }
        let matches = try count(filters)
        let wanted = offset + limit
        guard matches >= wanted, limit > 0 else { return nil }
        let shown = try count(PhotoFilters())
        let budget = 2 * ((wanted * shown + matches - 1) / matches)
        guard budget <= Self.walkedEntriesPerLookup * matches else { return nil }
        let bound = try rows("""
            SELECT p.\(key) FROM photos p WHERE p.dismissed_at IS NULL AND p.\(key) IS NOT NULL
            ORDER BY p.\(key) \(descending ? "DESC" : "ASC") LIMIT 1 OFFSET ?
            """, [budget - 1]).first?[0] as DatabaseValue?
        var (from, arguments) = photosFrom(filters, joinLikes: true, walked: true)
        if let bound {
            from += " AND p.\(key) \(descending ? ">=" : "<=") ?"
            arguments.append(bound)
        }
        let page = try rows("\(PhotoQuery.summaryJSON)\n\(from)\nORDER BY \(order)\nLIMIT ? OFFSET ?", arguments + [limit, offset])
        // Unbounded (every shown photo is within the budget), the walk is the whole filter: any page is right.
        return bound == nil || page.count == limit ? page : nil
    }

    /// How many index entries a walk may cover for each matching photo it saves looking up: measured
    /// ~20 to 1, kept at 4 so that a walk that finds too little costs a fifth of the lookups it tried
    /// to save.
    private static let walkedEntriesPerLookup = 4

    /// How many photos match `filters`.
    mutating func count(_ filters: PhotoFilters) throws -> Int {
        if let known = counted[filters] { return known }
        try holdMatch(filters)
        let total: Int
        if let negative = [\PhotoFilters.liked, \.edited].first(where: { filters[keyPath: $0] == false }) {
            var without = filters, with = filters
            without[keyPath: negative] = nil
            with[keyPath: negative] = true
            total = try count(without) - count(with)
        } else if !filters.narrows {
            total = try rows(filters.dismissed
                ? "SELECT value FROM counters WHERE name = 'dismissed'"
                : "SELECT (SELECT value FROM counters WHERE name = 'photos') - (SELECT value FROM counters WHERE name = 'dismissed')", [])
                .first?[0] ?? 0
        } else if filters.isTextAlone, let held {
            let dismissed: Int = try rows("SELECT \(Self.dismissedMatches)", []).first?[0] ?? 0
            total = filters.dismissed ? dismissed : held.count - dismissed
        } else {
            let (from, arguments) = filters.liked == true ? likedFrom(filters, joinPhotos: false) : photosFrom(filters, joinLikes: false)
            total = try rows("SELECT count(*)\n\(from)", arguments).first?[0] ?? 0
        }
        counted[filters] = total
        return total
    }

    /// A text match alone is counted as the photos the match holds less the dismissed ones among them
    /// (walked from their partial index): reading each matching photo's row for its dismissed state was
    /// half the request at 1,000,000 photos (10,870 matches: 26 ms against 4).
    private static let dismissedMatches = "(SELECT count(*) FROM photos p WHERE p.dismissed_at IS NOT NULL AND +p.rowid IN \(matchedRowids))"
    /// The rowids of the photos the text matches, as `holdMatch` keeps them (searched by rowid, never scanned).
    private static let matchedRowids = "temp.photo_match"

    /// Reads the photos a text match names from the full-text index once per request, into a table of
    /// this connection's own (`temp.photo_match`) that the counts and pages then search by rowid. Read
    /// where each statement named the match, the index was read two or three times a request (the count,
    /// the dismissed ones, the page), and reading it is most of a text search's time: at 1,000,000
    /// photos, 15 ms a read for a two-word match of 10,849 photos, against 1 ms to keep its rowids. The
    /// table is emptied when the request is done (`finish`).
    private mutating func holdMatch(_ filters: PhotoFilters) throws {
        guard let match = filters.match, held?.match != match else { return }
        try execute("CREATE TEMP TABLE IF NOT EXISTS photo_match (rowid INTEGER PRIMARY KEY)", [])
        try execute("DELETE FROM temp.photo_match", [])
        try execute("INSERT INTO temp.photo_match SELECT rowid FROM photos_fts WHERE photos_fts MATCH ?", [match])
        held = (match, db.changesCount)
    }

    /// Lets go of what the request held (a text match's rowids), so that an idle connection keeps none.
    mutating func finish() throws {
        guard held != nil else { return }
        try execute("DELETE FROM temp.photo_match", [])
        held = nil
    }

    /// Liked photos: the likes' index gives the account, the photo's dismissed state and colour, and the
    /// like order; a count joins the photo only for what a like does not carry.
    private func likedFrom(_ filters: PhotoFilters, joinPhotos: Bool) -> (String, [any DatabaseValueConvertible]) {
        var clauses = ["l.account_id = ?", "l.deleted_at IS NULL", "l.photo_dismissed = ?"]
        var arguments: [any DatabaseValueConvertible] = [accountId, filters.dismissed]
        if let color = filters.color {
            clauses.append("l.photo_color = ?")
            arguments.append(color)
        }
        let (photoClauses, photoArguments) = photoFilters(filters, withColour: false, withDismissed: false)
        let from = joinPhotos || !photoClauses.isEmpty ? "FROM likes l JOIN photos p ON p.id = l.photo_id" : "FROM likes l"
        return (from + "\nWHERE " + (clauses + photoClauses).joined(separator: " AND "), arguments + photoArguments)
    }

    /// Photos by their own indexes; the like joined for its time (a page) or its absence (not liked).
    private func photosFrom(_ filters: PhotoFilters, joinLikes: Bool, walked: Bool = false) -> (String, [any DatabaseValueConvertible]) {
        var (clauses, arguments) = photoFilters(filters, withColour: true, withDismissed: true, walked: walked)
        var from = "FROM photos p"
        if joinLikes || filters.liked == false {
            from += "\nLEFT JOIN likes l ON l.photo_id = p.id AND l.account_id = ? AND l.deleted_at IS NULL"
            arguments.insert(accountId, at: 0)
        }
        if filters.liked == false { clauses.append("l.liked_at IS NULL") }
        return (from + "\nWHERE " + clauses.joined(separator: " AND "), arguments)
    }

    /// `walked`: the sort key's index drives (`walkedPage`), the match is only tested, never looked up from.
    private func photoFilters(_ filters: PhotoFilters, withColour: Bool, withDismissed: Bool, walked: Bool = false)
        -> ([String], [any DatabaseValueConvertible]) {
        var clauses: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        // A text match or the edited photos name their rows: let them drive. A unary `+` keeps SQLite from
        // walking an index of the other columns instead (`dismissed_at IS NULL` ranges over nearly every
        // photo, yet looks to the planner like a narrow equality): 44 ms against 1 at 100,000 photos.
        let column = !walked && (filters.match != nil || filters.edited == true) ? "+p." : "p."
        if withDismissed { clauses.append(column + (filters.dismissed ? "dismissed_at IS NOT NULL" : "dismissed_at IS NULL")) }
        if let source = filters.source {
            clauses.append(column + "source = ?")
            arguments.append(source)
        }
        if withColour, let color = filters.color {
            clauses.append(column + "color_bucket = ?")
            arguments.append(color)
        }
        if let edited = filters.edited {
            clauses.append("p.id \(edited ? "IN" : "NOT IN") (SELECT e.photo_id FROM edits e WHERE e.deleted_at IS NULL)")
        }
        if filters.match != nil {
            clauses.append((walked ? "+" : "") + "p.rowid IN \(Self.matchedRowids)")
        }
        return (clauses, arguments)
    }

    private mutating func rows(_ sql: String, _ values: [any DatabaseValueConvertible]) throws -> [Row] {
        let arguments = try record(sql, values)
        // The same few hundred shapes of statement, asked on every request: compiled once per connection.
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }

    private mutating func execute(_ sql: String, _ values: [any DatabaseValueConvertible]) throws {
        try db.cachedStatement(sql: sql).execute(arguments: record(sql, values))
    }

    /// The statement's arguments; the statement and its plan recorded when the request asks to explain.
    private mutating func record(_ sql: String, _ values: [any DatabaseValueConvertible]) throws -> StatementArguments {
        let databaseValues = values.map(\.databaseValue)
        let arguments = StatementArguments(databaseValues)
        if statements != nil {
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments)
            var parents: [Int: Int] = [:]
            for step in plan { parents[step["id"]] = step["parent"] }
            func level(_ id: Int) -> Int { parents[id].map { $0 == 0 ? 0 : 1 + level($0) } ?? 0 }
            statements?.append(QueryStatement(
                sql: sql, arguments: databaseValues.map(Self.json),
                plan: plan.map { String(repeating: "  ", count: level($0["id"])) + ($0["detail"] as String) }))
        }
        return arguments
    }

    private static func json(_ value: DatabaseValue) -> JSONValue {
        switch value.storage {
        case .null: .null
        case .int64(let number): .integer(number)
        case .double(let number): .double(number)
        case .string(let text): .string(text)
        case .blob(let data): .string(data.base64EncodedString())
        }
    }
}
