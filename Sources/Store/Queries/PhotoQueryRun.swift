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

    init(db: Database, accountId: String, explain: Bool) {
        self.db = db
        self.accountId = accountId
        statements = explain ? [] : nil
    }

    /// A page of photos matching `filters`, liked ones walked from the likes' indexes.
    mutating func page(_ filters: PhotoFilters, order: String, limit: Int, offset: Int) throws -> [Row] {
        let (from, arguments) = filters.liked == true ? likedFrom(filters, joinPhotos: true) : photosFrom(filters, joinLikes: true)
        return try rows("\(PhotoQuery.summaryColumns)\n\(from)\nORDER BY \(order)\nLIMIT ? OFFSET ?", arguments + [limit, offset])
    }

    /// How many photos match `filters`.
    mutating func count(_ filters: PhotoFilters) throws -> Int {
        if let known = counted[filters] { return known }
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
        } else {
            let (from, arguments) = filters.liked == true ? likedFrom(filters, joinPhotos: false) : photosFrom(filters, joinLikes: false)
            total = try rows("SELECT count(*)\n\(from)", arguments).first?[0] ?? 0
        }
        counted[filters] = total
        return total
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
    private func photosFrom(_ filters: PhotoFilters, joinLikes: Bool) -> (String, [any DatabaseValueConvertible]) {
        var (clauses, arguments) = photoFilters(filters, withColour: true, withDismissed: true)
        var from = "FROM photos p"
        if joinLikes || filters.liked == false {
            from += "\nLEFT JOIN likes l ON l.photo_id = p.id AND l.account_id = ? AND l.deleted_at IS NULL"
            arguments.insert(accountId, at: 0)
        }
        if filters.liked == false { clauses.append("l.liked_at IS NULL") }
        return (from + "\nWHERE " + clauses.joined(separator: " AND "), arguments)
    }

    private func photoFilters(_ filters: PhotoFilters, withColour: Bool, withDismissed: Bool) -> ([String], [any DatabaseValueConvertible]) {
        var clauses: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        // A text match or the edited photos name their rows: let them drive. A unary `+` keeps SQLite from
        // walking an index of the other columns instead (`dismissed_at IS NULL` ranges over nearly every
        // photo, yet looks to the planner like a narrow equality): 44 ms against 1 at 100,000 photos.
        let column = filters.match != nil || filters.edited == true ? "+p." : "p."
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
        if let match = filters.match {
            clauses.append("p.rowid IN (SELECT rowid FROM photos_fts WHERE photos_fts MATCH ?)")
            arguments.append(match)
        }
        return (clauses, arguments)
    }

    private mutating func rows(_ sql: String, _ values: [any DatabaseValueConvertible]) throws -> [Row] {
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
        // The same few hundred shapes of statement, asked on every request: compiled once per connection.
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
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
