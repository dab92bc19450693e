import GRDB

/// The first schema: photos and their files, likes, edits, searches with ranked results, followed
/// feeds, the account, cached users, the outbox and sync cursors.
enum SchemaV1 {
    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE photos (
                id TEXT PRIMARY KEY NOT NULL,             -- source:remote_id
                source TEXT NOT NULL CHECK (source IN ('unsplash', 'nasa', 'local')),
                remote_id TEXT NOT NULL,
                title TEXT,
                description TEXT,
                alt_description TEXT,
                tags TEXT NOT NULL DEFAULT '',            -- space-separated, for full-text search
                author_name TEXT,
                author_username TEXT,
                author_url TEXT,
                width INTEGER,
                height INTEGER,
                color TEXT,                               -- dominant colour, #RRGGBB
                color_bucket TEXT,                        -- ColorBucket raw value
                blur_hash TEXT,
                urls TEXT,                                -- JSON object: variant -> URL
                metadata TEXT,                            -- JSON: exif, location, renditions, ...
                phash INTEGER,                            -- 64-bit perceptual hash, when computed
                created_at DATETIME,                      -- when the photo was taken or published
                remote_updated_at DATETIME,
                fetched_at DATETIME NOT NULL,
                dismissed_at DATETIME,
                UNIQUE (source, remote_id)
            );
            CREATE INDEX photos_color ON photos (color_bucket, fetched_at);
            CREATE INDEX photos_created ON photos (created_at);
            CREATE INDEX photos_fetched ON photos (fetched_at);
            CREATE INDEX photos_dismissed ON photos (dismissed_at) WHERE dismissed_at IS NOT NULL;
            CREATE INDEX photos_phash ON photos (phash) WHERE phash IS NOT NULL;

            -- Full-text search over what a person remembers of a photo.
            CREATE VIRTUAL TABLE photos_fts USING fts5(
                title, description, alt_description, tags, author_name,
                content='photos', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');
            CREATE TRIGGER photos_fts_insert AFTER INSERT ON photos BEGIN
                INSERT INTO photos_fts (rowid, title, description, alt_description, tags, author_name)
                VALUES (new.rowid, new.title, new.description, new.alt_description, new.tags, new.author_name);
            END;
            CREATE TRIGGER photos_fts_delete AFTER DELETE ON photos BEGIN
                INSERT INTO photos_fts (photos_fts, rowid, title, description, alt_description, tags, author_name)
                VALUES ('delete', old.rowid, old.title, old.description, old.alt_description, old.tags, old.author_name);
            END;
            CREATE TRIGGER photos_fts_update AFTER UPDATE OF title, description, alt_description, tags, author_name ON photos BEGIN
                INSERT INTO photos_fts (photos_fts, rowid, title, description, alt_description, tags, author_name)
                VALUES ('delete', old.rowid, old.title, old.description, old.alt_description, old.tags, old.author_name);
                INSERT INTO photos_fts (rowid, title, description, alt_description, tags, author_name)
                VALUES (new.rowid, new.title, new.description, new.alt_description, new.tags, new.author_name);
            END;

            CREATE TABLE photo_files (
                photo_id TEXT NOT NULL REFERENCES photos (id) ON DELETE CASCADE,
                variant TEXT NOT NULL,                    -- thumb, small, regular, full, raw, orig, edit:<id>
                path TEXT NOT NULL,                       -- relative to the data or cache directory
                in_library BOOLEAN NOT NULL DEFAULT 0,    -- 1: data directory, pinned; 0: cache, evictable
                bytes INTEGER NOT NULL,
                checksum TEXT,                            -- sha256 hex
                created_at DATETIME NOT NULL,
                last_access_at DATETIME NOT NULL,
                PRIMARY KEY (photo_id, variant)
            );
            CREATE INDEX photo_files_lru ON photo_files (in_library, last_access_at);

            -- A like belongs to the account that made it ('' when made signed out).
            CREATE TABLE likes (
                account_id TEXT NOT NULL,
                photo_id TEXT NOT NULL REFERENCES photos (id) ON DELETE CASCADE,
                liked_at DATETIME NOT NULL,
                updated_at DATETIME NOT NULL,
                deleted_at DATETIME,                      -- tombstone: unliked
                PRIMARY KEY (account_id, photo_id)
            );
            CREATE INDEX likes_recent ON likes (account_id, liked_at) WHERE deleted_at IS NULL;
            CREATE INDEX likes_photo ON likes (photo_id);

            CREATE TABLE edits (
                id TEXT PRIMARY KEY NOT NULL,             -- uuid chosen here, kept by the server
                account_id TEXT NOT NULL,
                photo_id TEXT NOT NULL REFERENCES photos (id) ON DELETE CASCADE,
                pipeline TEXT NOT NULL,                   -- JSON array of {filter, params}
                path TEXT,                                -- the filtered file, relative to the data directory
                storage_path TEXT,                        -- edits/<user id>/<edit id>.jpg
                created_at DATETIME NOT NULL,
                updated_at DATETIME NOT NULL,
                deleted_at DATETIME
            );
            CREATE INDEX edits_photo ON edits (photo_id) WHERE deleted_at IS NULL;

            CREATE TABLE searches (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                source TEXT NOT NULL,
                query TEXT NOT NULL,
                params_key TEXT NOT NULL,                 -- canonical JSON of every parameter
                total INTEGER,
                created_at DATETIME NOT NULL,
                last_run_at DATETIME NOT NULL,
                UNIQUE (source, params_key)
            );
            CREATE INDEX searches_recent ON searches (source, last_run_at);

            CREATE TABLE search_results (
                search_id INTEGER NOT NULL REFERENCES searches (id) ON DELETE CASCADE,
                page INTEGER NOT NULL,
                rank INTEGER NOT NULL,
                photo_id TEXT NOT NULL REFERENCES photos (id) ON DELETE CASCADE,
                PRIMARY KEY (search_id, page, rank)
            );

            CREATE TABLE feeds (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                kind TEXT NOT NULL CHECK (kind IN ('topic', 'search')),
                source TEXT NOT NULL,
                value TEXT NOT NULL,
                keep INTEGER NOT NULL DEFAULT 30,
                created_at DATETIME NOT NULL,
                refreshed_at DATETIME,
                UNIQUE (kind, source, value)
            );

            -- Accounts this daemon has been signed in to. Tokens are not here: the session lives in a
            -- 0600 file in the state directory.
            CREATE TABLE accounts (
                id TEXT PRIMARY KEY NOT NULL,             -- auth user uuid
                email TEXT NOT NULL,
                username TEXT,
                created_at DATETIME,
                last_sign_in_at DATETIME,
                profile_updated_at DATETIME,
                signed_in BOOLEAN NOT NULL DEFAULT 0
            );

            -- Other people, as the server shows them (recent signups), and cached scalar answers.
            CREATE TABLE cached_users (
                username TEXT PRIMARY KEY NOT NULL,
                created_at DATETIME NOT NULL,
                fetched_at DATETIME NOT NULL
            );
            CREATE TABLE cached_values (
                key TEXT PRIMARY KEY NOT NULL,            -- e.g. user_count
                value TEXT NOT NULL,
                fetched_at DATETIME NOT NULL
            );

            -- Changes waiting for the server. Written in the same transaction as their local effect.
            CREATE TABLE outbox (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,    -- order of the person's actions
                op_id TEXT NOT NULL UNIQUE,               -- client-generated uuid: resends are harmless
                account_id TEXT NOT NULL,
                entity TEXT NOT NULL,                     -- like, edit, profile
                entity_id TEXT NOT NULL,
                op TEXT NOT NULL,                         -- upsert, delete, ...
                payload TEXT NOT NULL,                    -- JSON
                state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'in_flight', 'rejected')),
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at DATETIME,
                last_error TEXT,
                created_at DATETIME NOT NULL,
                updated_at DATETIME NOT NULL
            );
            CREATE INDEX outbox_due ON outbox (account_id, state, next_attempt_at);
            CREATE INDEX outbox_entity ON outbox (entity, entity_id, state);

            CREATE TABLE sync_cursors (
                account_id TEXT NOT NULL,
                table_name TEXT NOT NULL,
                updated_at TEXT NOT NULL,                 -- server timestamp, kept verbatim
                last_id TEXT NOT NULL,
                PRIMARY KEY (account_id, table_name)
            );
            """)
    }
}
