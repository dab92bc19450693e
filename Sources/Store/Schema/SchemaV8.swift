import GRDB

/// v8: the photos' rows the server holds, as this device last sent them and the
/// server took them, per account. A like or edit whose photo's row is the one held goes without it:
/// 10,000 likes sent again after as many unlikes, or liked on another device and unliked here, no
/// longer carry 10,000 photos' metadata the server already has. A row the server holds differently
/// (another device sent other URLs) is simply sent again: the text differs.
enum SchemaV8 {
    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE server_photos (
                account_id TEXT NOT NULL,
                photo_id TEXT NOT NULL,
                row TEXT NOT NULL,                        -- PhotoPushRow's JSON object, as sent
                PRIMARY KEY (account_id, photo_id)
            ) WITHOUT ROWID;
            """)
    }
}
