import GRDB

/// A page of pulled rows staged in a temporary table of the writer's connection, so that one statement
/// writes the whole page's photos.
///
/// Every statement that writes `photos` runs its triggers under a statement savepoint, and at every
/// savepoint FTS5 writes the terms it holds pending as a new segment of its index (`xSavepoint` syncs
/// its storage). A statement per row therefore wrote one segment per photo, and FTS5 merged them again
/// as they piled up: filling 500 bare photos a statement each took 39 µs a row against 19 µs staged and
/// filled by one statement (Python's sqlite3 on this machine, the same library and schema); making a
/// page's bare photos one by one before their likes, 31 µs a like against 24.
///
/// The table lives as long as the connection and holds rows only inside the page's transaction: a page
/// that fails rolls them back with everything else.
enum PulledPage {
    case bare
    case photos

    private var table: String {
        switch self {
        case .bare: "pulled_bare"
        case .photos: "pulled_photos"
        }
    }

    /// The columns, the first (`id`) its key: of two rows with one id the first is kept.
    private var columns: [String] {
        switch self {
        case .bare: ["id", "source", "remote_id"]
        case .photos:
            ["id", "source", "remote_id", "title", "description", "author_name", "author_url", "width", "height", "color",
             "color_bucket", "urls", "metadata"]
        }
    }

    /// The table, made on the first page of the connection's life.
    func create(_ db: Database) throws {
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS \(table) (\(columns[0]) TEXT PRIMARY KEY, \(columns.dropFirst().joined(separator: ", ")))")
    }

    func stage(_ db: Database, rows: [[(any DatabaseValueConvertible)?]]) throws {
        try create(db)
        let insert = try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO temp.\(table) (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            """)
        for row in rows {
            try insert.execute(arguments: StatementArguments(row))
        }
    }

    func clear(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM temp.\(table)")
    }
}
