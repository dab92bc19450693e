import Foundation
import GRDB
import Support

/// This device as the store knows it: its id (made once, at random, by SchemaV9), which stamps every
/// action it makes, and what it last knew of the server's clock.
public enum DeviceRows {
    public static func id(_ db: Database) throws -> String {
        guard let id = try String.fetchOne(db, sql: "SELECT id FROM device WHERE one = 1") else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "the store names no device (v9's row is missing)")
        }
        return id
    }

    static let clockKey = "server_clock"

    public static func savedClock(_ db: Database) throws -> ServerClock.Saved? {
        try CachedValue.fetch(db, key: clockKey).flatMap { try? JSONDecoder().decode(ServerClock.Saved.self, from: Data($0.value.utf8)) }
    }

    public static func saveClock(_ db: Database, _ saved: ServerClock.Saved, now: Date) throws {
        let text = String(decoding: try JSONEncoder().encode(saved), as: UTF8.self)
        try CachedValue.save(db, key: clockKey, value: text, fetchedAt: now)
    }
}
