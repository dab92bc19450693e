import GRDB

/// v9: the person's last word across devices. Each like and each username carries the stamp of the
/// action that set it (`acted_ms`, on the server's clock, and the device that acted), which decides
/// against another device's change to the same row; the store names this device once, at random.
/// Photos whose original is not shared with the account's other devices (a note in their metadata) are
/// few, and indexed so that status counts them at a glance.
/// Likes made before keep their last action's time (their unlike's, else their like's) and no device:
/// the nearest the store knows.
enum SchemaV9 {
    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE likes ADD COLUMN acted_ms INTEGER;
            ALTER TABLE likes ADD COLUMN acted_by TEXT;
            UPDATE likes SET acted_ms = CAST(round((julianday(coalesce(deleted_at, liked_at)) - 2440587.5) * 86400000) AS INTEGER);
            ALTER TABLE accounts ADD COLUMN username_acted_ms INTEGER;
            ALTER TABLE accounts ADD COLUMN username_acted_by TEXT;
            CREATE TABLE device (
                one INTEGER PRIMARY KEY NOT NULL CHECK (one = 1),
                id TEXT NOT NULL
            );
            INSERT INTO device (one, id) VALUES (1, lower(hex(randomblob(16))));
            CREATE INDEX photos_original_not_shared ON photos (id)
                WHERE json_valid(metadata) AND json_extract(metadata, '$.original_note') IS NOT NULL;
            """)
    }
}
