import GRDB

/// Append-only migrations. A migration that shipped is never edited: change the schema by adding one.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 library, account and outbox", migrate: SchemaV1.migrate)
        migrator.registerMigration("v2 pull rereads", migrate: SchemaV2.migrate)
        migrator.registerMigration("v3 counters", migrate: SchemaV3.migrate)
        migrator.registerMigration("v4 list indexes", migrate: SchemaV4.migrate)
        migrator.registerMigration("v5 searches asked, guest adoptions, watched folders", migrate: SchemaV5.migrate)
        migrator.registerMigration("v6 like checks for near-duplicates", migrate: SchemaV6.migrate)
        migrator.registerMigration("v7 google photos", migrate: SchemaV7.migrate)
        migrator.registerMigration("v8 photos the server holds", migrate: SchemaV8.migrate)
        migrator.registerMigration("v9 action stamps and the device", migrate: SchemaV9.migrate)
        migrator.registerMigration("v10 full text as a person types", migrate: SchemaV10.migrate)
        return migrator
    }

    /// The identifiers of every known migration, newest last (exposed for tests).
    static var identifiers: [String] { migrator.migrations }
}

extension Store {
    /// Identifiers of the migrations applied to this database, in order.
    public func appliedMigrations() throws -> [String] {
        try pool.read { db in try Migrations.migrator.appliedMigrations(db) }
    }

    public static var knownMigrations: [String] { Migrations.identifiers }
}
