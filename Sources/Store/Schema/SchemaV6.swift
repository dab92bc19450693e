import GRDB

/// v6: a like whose photo's perceptual hash is not known yet waits, before it is
/// sent, for the photo's file to arrive and be compared with the library (`LikeCheckRows`). A row
/// with no twin is a check still waiting (its op is due at the check's deadline anyway, so a file
/// that never comes holds nothing for good); a row with a twin holds its op in the `duplicate` state
/// until the person keeps the like (`queue retry`) or undoes it (`unlike`). The row goes with its op.
enum SchemaV6 {
    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE like_checks (
                op_id TEXT PRIMARY KEY NOT NULL REFERENCES outbox (op_id) ON DELETE CASCADE,
                photo_id TEXT NOT NULL,
                twin_id TEXT,                             -- null: the photo's file has not been compared yet
                distance INTEGER,
                checked_at DATETIME
            );
            CREATE INDEX like_checks_photo ON like_checks (photo_id);
            """)
    }
}
