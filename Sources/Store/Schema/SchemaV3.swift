import GRDB

/// v3: the counters `daemon.status` shows, kept by triggers as rows change, so that reading them costs
/// one lookup each instead of counting the tables: the daemon recounted after every like, every
/// finished download and every pushed batch, and at 100,000 photos each recount read them all.
///
/// Rows of `counters`: `photos`, `dismissed`, `files` and `file_bytes` (every `photo_files` row, library
/// and cache), `outbox:<state>`, and `liked:<account id>` (live likes). The triggers never use a
/// conflict clause: one inside a trigger yields to the outer statement's (an `INSERT OR REPLACE` into
/// likes would have made an `OR IGNORE` here replace the counter). A REPLACE on a counted table would
/// delete without the delete trigger unless recursive triggers are on: the store turns them on, and
/// writes `photo_files` with an upsert.
enum SchemaV3 {
    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE counters (
                name TEXT PRIMARY KEY NOT NULL,
                value INTEGER NOT NULL
            ) WITHOUT ROWID;

            INSERT INTO counters (name, value) VALUES
                ('photos', (SELECT count(*) FROM photos)),
                ('dismissed', (SELECT count(*) FROM photos WHERE dismissed_at IS NOT NULL)),
                ('files', (SELECT count(*) FROM photo_files)),
                ('file_bytes', (SELECT coalesce(sum(bytes), 0) FROM photo_files)),
                ('outbox:pending', (SELECT count(*) FROM outbox WHERE state = 'pending')),
                ('outbox:in_flight', (SELECT count(*) FROM outbox WHERE state = 'in_flight')),
                ('outbox:rejected', (SELECT count(*) FROM outbox WHERE state = 'rejected'));
            INSERT INTO counters (name, value)
                SELECT 'liked:' || account_id, count(*) FROM likes WHERE deleted_at IS NULL GROUP BY account_id;

            CREATE TRIGGER photos_counted_insert AFTER INSERT ON photos BEGIN
                UPDATE counters SET value = value + 1 WHERE name = 'photos';
                UPDATE counters SET value = value + 1 WHERE name = 'dismissed' AND new.dismissed_at IS NOT NULL;
            END;
            CREATE TRIGGER photos_counted_delete AFTER DELETE ON photos BEGIN
                UPDATE counters SET value = value - 1 WHERE name = 'photos';
                UPDATE counters SET value = value - 1 WHERE name = 'dismissed' AND old.dismissed_at IS NOT NULL;
            END;
            CREATE TRIGGER photos_counted_dismiss AFTER UPDATE OF dismissed_at ON photos BEGIN
                UPDATE counters SET value = value + (new.dismissed_at IS NOT NULL) - (old.dismissed_at IS NOT NULL)
                WHERE name = 'dismissed';
            END;

            CREATE TRIGGER photo_files_counted_insert AFTER INSERT ON photo_files BEGIN
                UPDATE counters SET value = value + 1 WHERE name = 'files';
                UPDATE counters SET value = value + new.bytes WHERE name = 'file_bytes';
            END;
            CREATE TRIGGER photo_files_counted_delete AFTER DELETE ON photo_files BEGIN
                UPDATE counters SET value = value - 1 WHERE name = 'files';
                UPDATE counters SET value = value - old.bytes WHERE name = 'file_bytes';
            END;
            CREATE TRIGGER photo_files_counted_bytes AFTER UPDATE OF bytes ON photo_files BEGIN
                UPDATE counters SET value = value + new.bytes - old.bytes WHERE name = 'file_bytes';
            END;

            CREATE TRIGGER likes_counted_insert AFTER INSERT ON likes WHEN new.deleted_at IS NULL BEGIN
                INSERT INTO counters (name, value)
                    SELECT 'liked:' || new.account_id, 0
                    WHERE NOT EXISTS (SELECT 1 FROM counters WHERE name = 'liked:' || new.account_id);
                UPDATE counters SET value = value + 1 WHERE name = 'liked:' || new.account_id;
            END;
            CREATE TRIGGER likes_counted_delete AFTER DELETE ON likes WHEN old.deleted_at IS NULL BEGIN
                UPDATE counters SET value = value - 1 WHERE name = 'liked:' || old.account_id;
            END;
            CREATE TRIGGER likes_counted_update AFTER UPDATE OF deleted_at, account_id ON likes BEGIN
                UPDATE counters SET value = value - 1 WHERE old.deleted_at IS NULL AND name = 'liked:' || old.account_id;
                INSERT INTO counters (name, value)
                    SELECT 'liked:' || new.account_id, 0
                    WHERE new.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM counters WHERE name = 'liked:' || new.account_id);
                UPDATE counters SET value = value + 1 WHERE new.deleted_at IS NULL AND name = 'liked:' || new.account_id;
            END;

            CREATE TRIGGER outbox_counted_insert AFTER INSERT ON outbox BEGIN
                UPDATE counters SET value = value + 1 WHERE name = 'outbox:' || new.state;
            END;
            CREATE TRIGGER outbox_counted_delete AFTER DELETE ON outbox BEGIN
                UPDATE counters SET value = value - 1 WHERE name = 'outbox:' || old.state;
            END;
            CREATE TRIGGER outbox_counted_state AFTER UPDATE OF state ON outbox BEGIN
                UPDATE counters SET value = value - 1 WHERE name = 'outbox:' || old.state;
                UPDATE counters SET value = value + 1 WHERE name = 'outbox:' || new.state;
            END;
            """)
    }
}
