import Foundation
import GRDB

/// v7: photos picked from Google Photos. `photos.source` accepts `google` — SQLite cannot
/// alter a CHECK, so the table is rebuilt the documented way (a new table with the wider check, the rows
/// copied with their rowids — the full-text index points at them —, the old one dropped, the new one
/// renamed, its indexes and triggers made again from their own SQL, other tables' triggers naming it
/// left as they are); GRDB runs migrations with foreign
/// keys off and checks them all before committing. Then the picking sessions and their picks, so that
/// an import cut short (a stop, a crash) goes on where it was: a pick is `waiting` until its file is in
/// the library (`imported`), refused as a near-duplicate (`duplicate`), not a photo (`skipped`: a
/// video), or given up with the reason (`failed`).
enum SchemaV7 {
    static let oldCheck = "CHECK (source IN ('unsplash', 'nasa', 'local'))"
    static let newCheck = "CHECK (source IN ('unsplash', 'nasa', 'local', 'google'))"

    static func migrate(_ db: Database) throws {
        guard let table = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'photos'"),
              table.contains(oldCheck)
        else { throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "v7: the photos table is not the one v6 left") }
        let dependents = try String.fetchAll(db, sql: """
            SELECT sql FROM sqlite_schema WHERE tbl_name = 'photos' AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type, name
            """)
        let columns = try db.columns(in: "photos").map { "\"\($0.name)\"" }.joined(separator: ", ")
        try db.execute(sql: table.replacingOccurrences(of: "CREATE TABLE photos", with: "CREATE TABLE photos_v7")
            .replacingOccurrences(of: oldCheck, with: newCheck))
        try db.execute(sql: "INSERT INTO photos_v7 (rowid, \(columns)) SELECT rowid, \(columns) FROM photos")
        try db.execute(sql: "DROP TABLE photos")
        // Triggers of other tables name photos (a like copies its photo's facts): between the drop and
        // the rename they name a table that is not there, which the rename's check of the whole schema
        // refuses. In legacy mode the rename checks and rewrites nothing, and they name the new table.
        try db.execute(sql: "PRAGMA legacy_alter_table = ON")
        try db.execute(sql: "ALTER TABLE photos_v7 RENAME TO photos")
        try db.execute(sql: "PRAGMA legacy_alter_table = OFF")
        for sql in dependents { try db.execute(sql: sql) }

        try db.execute(sql: """
            CREATE TABLE google_sessions (
                session_id TEXT PRIMARY KEY NOT NULL,
                account_id TEXT NOT NULL,                 -- whose library the picks go into ('' signed out)
                picker_uri TEXT NOT NULL,
                poll_interval_ms INTEGER NOT NULL,
                expires_at DATETIME NOT NULL,             -- the person has until then to pick
                state TEXT NOT NULL DEFAULT 'picking' CHECK (state IN ('picking', 'importing', 'done', 'expired', 'failed')),
                detail TEXT,                              -- why it expired or failed
                created_at DATETIME NOT NULL,
                finished_at DATETIME
            );
            CREATE TABLE google_picks (
                session_id TEXT NOT NULL REFERENCES google_sessions (session_id) ON DELETE CASCADE,
                item_id TEXT NOT NULL,
                position INTEGER NOT NULL,
                kind TEXT NOT NULL,                       -- PHOTO, VIDEO (the Picker API's type)
                filename TEXT,
                mime_type TEXT,
                width INTEGER,
                height INTEGER,
                taken_at DATETIME,
                camera TEXT,
                state TEXT NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'imported', 'duplicate', 'skipped', 'failed')),
                photo_id TEXT,                            -- imported: the photo; duplicate: its twin
                detail TEXT,
                PRIMARY KEY (session_id, item_id)
            );
            CREATE INDEX google_picks_waiting ON google_picks (session_id, position) WHERE state = 'waiting';
            """)
    }
}
