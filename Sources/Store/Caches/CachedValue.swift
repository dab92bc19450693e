import Foundation
import GRDB

/// A value kept with the time it was fetched (`cached_values`): the account count, the topics, when
/// a profile was last read. One row per key.
public struct CachedValue: Sendable, Equatable {
    public var value: String
    public var fetchedAt: Date

    public static func fetch(_ db: Database, key: String) throws -> CachedValue? {
        try Row.fetchOne(db, sql: "SELECT value, fetched_at FROM cached_values WHERE key = ?", arguments: [key]).map {
            CachedValue(value: $0["value"], fetchedAt: $0["fetched_at"])
        }
    }

    public static func save(_ db: Database, key: String, value: String, fetchedAt: Date) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO cached_values (key, value, fetched_at) VALUES (?, ?, ?)", arguments: [key, value, fetchedAt])
    }
}
