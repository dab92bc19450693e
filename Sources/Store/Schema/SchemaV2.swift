import GRDB

/// v2: rows a pull passed over while a local op waited, to be read again (PullRereads).
enum SchemaV2 {
    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE pull_rereads (
                account_id TEXT NOT NULL,
                table_name TEXT NOT NULL,
                entity_id TEXT NOT NULL,
                PRIMARY KEY (account_id, table_name, entity_id)
            ) WITHOUT ROWID;
            """)
    }
}
