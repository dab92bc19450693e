import GRDB

/// v5: when a search was last asked for, apart from when its results were last fetched
/// (item 5). A search run before now answers from the store and refreshes in the background, so
/// asking again no longer fetches: `search history` orders by the asking (`asked_at`), a kept page
/// says how old it is by the fetching (`last_run_at`).
///
/// And the account that the guest's likes and edits are being brought into (item 1), so that an
/// adoption cut short by a crash goes on at the next start (`GuestRows`); and the folders watched for
/// new photos (item 7, `WatchedFolderRows`).
enum SchemaV5 {
    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE searches ADD COLUMN asked_at DATETIME NOT NULL DEFAULT '1970-01-01 00:00:00.000';
            UPDATE searches SET asked_at = last_run_at;
            DROP INDEX searches_recent;
            CREATE INDEX searches_asked ON searches (source, asked_at);

            CREATE TABLE guest_adoptions (
                account_id TEXT PRIMARY KEY NOT NULL,
                started_at DATETIME NOT NULL
            );

            CREATE TABLE watched_folders (
                path TEXT PRIMARY KEY NOT NULL,
                recursive INTEGER NOT NULL,
                added_at DATETIME NOT NULL,
                scanned_at DATETIME NOT NULL            -- files changed after it are imported at the next start
            );
            """)
    }
}
