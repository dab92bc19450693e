import GRDB

/// v5: when a search was last asked for, apart from when its results were last fetched (issue 20,
/// item 5). A search run before now answers from the store and refreshes in the background, so
/// asking again no longer fetches: `search history` orders by the asking (`asked_at`), a kept page
/// says how old it is by the fetching (`last_run_at`).
enum SchemaV5 {
    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE searches ADD COLUMN asked_at DATETIME NOT NULL DEFAULT '1970-01-01 00:00:00.000';
            UPDATE searches SET asked_at = last_run_at;
            DROP INDEX searches_recent;
            CREATE INDEX searches_asked ON searches (source, asked_at);
            """)
    }
}
