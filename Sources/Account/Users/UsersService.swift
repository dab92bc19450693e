import Foundation
import GRDB
import Shared
import Store
import Synchronization

/// What the server says about everyone: how many accounts (`rpc/user_count`) and the newest sign-ups
/// (the `recent_signups` view). Answers are cached in the store with their fetch time; a fresh cache
/// answers without the network, and offline the cache answers, marked stale with its age.
public final class UsersService: Sendable {
    private let backend: SupabaseBackend?
    private let store: Store
    /// Keys fetched successfully by this process, and when: only those serve as fresh without asking
    /// the server (a cache from before a restart may be from before an outage).
    private let fetchedHere = Mutex<[String: Date]>([:])
    /// A cached answer younger than this is served without asking the server.
    public let freshFor: TimeInterval

    static let countKey = "user_count"
    static let recentKey = "recent_signups"

    public init(backend: SupabaseBackend?, store: Store, freshFor: TimeInterval = 60) {
        self.backend = backend
        self.store = store
        self.freshFor = freshFor
    }

    public func count(now: Date = Date()) async throws(RPCError) -> UsersCountResult {
        let cached = try cachedCount()
        if let cached, isFresh(Self.countKey, now: now) {
            return UsersCountResult(count: cached.count, fetchedAt: cached.fetchedAt, stale: false, ageSeconds: now.timeIntervalSince(cached.fetchedAt))
        }
        do {
            guard let backend else { throw BackendError.notConfigured }
            let response = try await backend.send("POST", "/rest/v1/rpc/user_count", body: Array("{}".utf8), timeout: .seconds(5))
            let count = try SupabaseBackend.decode(Int.self, from: response)
            let fetchedAt = Date()
            try write { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO cached_values (key, value, fetched_at) VALUES (?, ?, ?)",
                    arguments: [Self.countKey, String(count), fetchedAt])
            }
            fetchedHere.withLock { $0[Self.countKey] = fetchedAt }
            return UsersCountResult(count: count, fetchedAt: fetchedAt, stale: false, ageSeconds: 0)
        } catch let error as BackendError {
            guard error.isTransient || error == .notConfigured, let cached else { throw AccountFailure.backend(error).rpcError }
            return UsersCountResult(count: cached.count, fetchedAt: cached.fetchedAt, stale: true, ageSeconds: now.timeIntervalSince(cached.fetchedAt))
        } catch {
            throw error as? RPCError ?? RPCError(.internalError, "\(error)")
        }
    }

    public func recent(limit: Int, now: Date = Date()) async throws(RPCError) -> UsersRecentResult {
        let cachedAt = try read { db in
            try Date.fetchOne(db, sql: "SELECT fetched_at FROM cached_values WHERE key = ?", arguments: [Self.recentKey])
        }
        if let cachedAt, isFresh(Self.recentKey, now: now) {
            return UsersRecentResult(users: try cachedUsers(limit), fetchedAt: cachedAt, stale: false, ageSeconds: now.timeIntervalSince(cachedAt))
        }
        do {
            guard let backend else { throw BackendError.notConfigured }
            let response = try await backend.send(
                "GET", "/rest/v1/recent_signups",
                query: [("select", "username,created_at"), ("order", "created_at.desc,username.asc"), ("limit", String(UsersRecentRequest.maxLimit))],
                timeout: .seconds(5))
            let rows = try SupabaseBackend.decode([WireRecentUser].self, from: response)
            let users = rows.compactMap { row in SupabaseTime.parse(row.createdAt).map { RecentUser(username: row.username, createdAt: $0) } }
            let fetchedAt = Date()
            try write { db in
                try db.execute(sql: "DELETE FROM cached_users")
                for user in users {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO cached_users (username, created_at, fetched_at) VALUES (?, ?, ?)",
                        arguments: [user.username, user.createdAt, fetchedAt])
                }
                try db.execute(
                    sql: "INSERT OR REPLACE INTO cached_values (key, value, fetched_at) VALUES (?, ?, ?)",
                    arguments: [Self.recentKey, String(users.count), fetchedAt])
            }
            fetchedHere.withLock { $0[Self.recentKey] = fetchedAt }
            return UsersRecentResult(users: Array(users.prefix(limit)), fetchedAt: fetchedAt, stale: false, ageSeconds: 0)
        } catch let error as BackendError {
            guard error.isTransient || error == .notConfigured, let cachedAt else { throw AccountFailure.backend(error).rpcError }
            return UsersRecentResult(users: try cachedUsers(limit), fetchedAt: cachedAt, stale: true, ageSeconds: now.timeIntervalSince(cachedAt))
        } catch {
            throw error as? RPCError ?? RPCError(.internalError, "\(error)")
        }
    }

    private func isFresh(_ key: String, now: Date) -> Bool {
        fetchedHere.withLock { $0[key] }.map { now.timeIntervalSince($0) < freshFor } ?? false
    }

    private func cachedCount() throws(RPCError) -> (count: Int, fetchedAt: Date)? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT value, fetched_at FROM cached_values WHERE key = ?", arguments: [Self.countKey]),
                  let count = Int(row["value"] as String)
            else { return nil }
            return (count, row["fetched_at"])
        }
    }

    private func cachedUsers(_ limit: Int) throws(RPCError) -> [RecentUser] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT username, created_at FROM cached_users ORDER BY created_at DESC, username LIMIT ?", arguments: [limit])
                .map { RecentUser(username: $0["username"], createdAt: $0["created_at"]) }
        }
    }

    private func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(RPCError) -> T {
        do {
            return try store.read(body)
        } catch {
            throw RPCError(.internalError, "the store failed: \(error)")
        }
    }

    private func write(_ body: @Sendable (Database) throws -> Void) throws(RPCError) {
        do {
            try store.write(body)
        } catch {
            throw RPCError(.internalError, "the store failed: \(error)")
        }
    }
}

struct WireRecentUser: Decodable {
    var username: String
    var createdAt: String

    enum CodingKeys: String, CodingKey {
        case username, createdAt = "created_at"
    }
}
