import Foundation
import GRDB
import Shared

/// The last answers about everyone (the account count and the newest sign-ups), kept with their
/// fetch time so they answer offline.
public struct UsersCache: Sendable {
    public let store: Store

    static let countKey = "user_count"
    static let recentKey = "recent_signups"

    public init(store: Store) {
        self.store = store
    }

    public func count() throws -> (count: Int, fetchedAt: Date)? {
        try store.read { db in
            guard let cached = try CachedValue.fetch(db, key: Self.countKey), let count = Int(cached.value) else { return nil }
            return (count, cached.fetchedAt)
        }
    }

    public func saveCount(_ count: Int, fetchedAt: Date) throws {
        try store.write { db in try CachedValue.save(db, key: Self.countKey, value: String(count), fetchedAt: fetchedAt) }
    }

    /// When the newest sign-ups were last fetched; nil if never.
    public func recentFetchedAt() throws -> Date? {
        try store.read { db in try CachedValue.fetch(db, key: Self.recentKey)?.fetchedAt }
    }

    /// Replaces the kept sign-ups with `users`, in one transaction.
    public func saveRecent(_ users: [RecentUser], fetchedAt: Date) throws {
        try store.write { db in
            try db.execute(sql: "DELETE FROM cached_users")
            for user in users {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO cached_users (username, created_at, fetched_at) VALUES (?, ?, ?)",
                    arguments: [user.username, user.createdAt, fetchedAt])
            }
            try CachedValue.save(db, key: Self.recentKey, value: String(users.count), fetchedAt: fetchedAt)
        }
    }

    public func recent(limit: Int) throws -> [RecentUser] {
        try store.read { db in
            try Row.fetchAll(db, sql: "SELECT username, created_at FROM cached_users ORDER BY created_at DESC, username LIMIT ?", arguments: [limit])
                .map { RecentUser(username: $0["username"], createdAt: $0["created_at"]) }
        }
    }
}
