import Foundation
import Shared
import Store
import Supabase
import Synchronization

/// What the server says about everyone: how many accounts (`rpc/user_count`) and the newest sign-ups
/// (the `recent_signups` view). Answers are cached in the store with their fetch time; a fresh cache
/// answers without the network, and offline the cache answers, marked stale with its age.
public final class UsersService: Sendable {
    private let backend: SupabaseBackend?
    private let cache: UsersCache
    /// Answers fetched successfully by this process, and when: only those serve as fresh without asking
    /// the server (a cache from before a restart may be from before an outage).
    private let fetchedHere = Mutex<[Answer: Date]>([:])
    /// A cached answer younger than this is served without asking the server.
    public let freshFor: TimeInterval
    /// While the live channel is up, every sign-up refreshes the answers (`refresh()`): what was
    /// fetched here stays fresh however old, until the channel goes down.
    private let keptFresh = Mutex(false)

    private enum Answer { case count, recent }

    public init(backend: SupabaseBackend?, store: Store, freshFor: TimeInterval = 60) {
        self.backend = backend
        self.cache = UsersCache(store: store)
        self.freshFor = freshFor
    }

    public func count(now: Date = Date()) async throws(AccountFailure) -> UsersCountResult {
        let cached = try AccountFailure.storing { try cache.count() }
        if let cached, isFresh(.count, now: now) {
            return UsersCountResult(count: cached.count, fetchedAt: cached.fetchedAt, stale: false, ageSeconds: now.timeIntervalSince(cached.fetchedAt))
        }
        let count: Int
        do throws(BackendError) {
            guard let backend else { throw BackendError.notConfigured }
            let response = try await backend.send("POST", "/rest/v1/rpc/user_count", body: Array("{}".utf8), timeout: .seconds(5))
            count = try SupabaseBackend.decode(Int.self, from: response)
        } catch {
            guard error.isTransient || error == .notConfigured, let cached else { throw AccountFailure.backend(error) }
            return UsersCountResult(count: cached.count, fetchedAt: cached.fetchedAt, stale: true, ageSeconds: now.timeIntervalSince(cached.fetchedAt))
        }
        let fetchedAt = Date()
        try AccountFailure.storing { try cache.saveCount(count, fetchedAt: fetchedAt) }
        fetchedHere.withLock { $0[.count] = fetchedAt }
        return UsersCountResult(count: count, fetchedAt: fetchedAt, stale: false, ageSeconds: 0)
    }

    public func recent(limit: Int, now: Date = Date()) async throws(AccountFailure) -> UsersRecentResult {
        let cachedAt = try AccountFailure.storing { try cache.recentFetchedAt() }
        if let cachedAt, isFresh(.recent, now: now) {
            return UsersRecentResult(users: try AccountFailure.storing { try cache.recent(limit: limit) }, fetchedAt: cachedAt, stale: false, ageSeconds: now.timeIntervalSince(cachedAt))
        }
        let rows: [WireRecentUser]
        do throws(BackendError) {
            guard let backend else { throw BackendError.notConfigured }
            let response = try await backend.send(
                "GET", "/rest/v1/recent_signups",
                query: [("select", "username,created_at"), ("order", "created_at.desc,username.asc"), ("limit", String(UsersRecentRequest.maxLimit))],
                timeout: .seconds(5))
            rows = try SupabaseBackend.decode([WireRecentUser].self, from: response)
        } catch {
            guard error.isTransient || error == .notConfigured, let cachedAt else { throw AccountFailure.backend(error) }
            return UsersRecentResult(users: try AccountFailure.storing { try cache.recent(limit: limit) }, fetchedAt: cachedAt, stale: true, ageSeconds: now.timeIntervalSince(cachedAt))
        }
        let users = rows.compactMap { row in SupabaseTime.parse(row.createdAt).map { RecentUser(username: row.username, createdAt: $0) } }
        let fetchedAt = Date()
        try AccountFailure.storing { try cache.saveRecent(users, fetchedAt: fetchedAt) }
        fetchedHere.withLock { $0[.recent] = fetchedAt }
        return UsersRecentResult(users: Array(users.prefix(limit)), fetchedAt: fetchedAt, stale: false, ageSeconds: 0)
    }

    private func isFresh(_ answer: Answer, now: Date) -> Bool {
        guard let fetched = fetchedHere.withLock({ $0[answer] }) else { return false }
        return keptFresh.withLock { $0 } || now.timeIntervalSince(fetched) < freshFor
    }

    /// The live channel is up (or down): while up, answers fetched here count as fresh.
    public func setKeptFresh(_ live: Bool) {
        keptFresh.withLock { $0 = live }
    }

    /// Someone signed up: the newest sign-ups and the count fetched anew, in that order. They are two
    /// requests, and a sign-up may land between them: asked the other way round, a change could list
    /// a newcomer with a count from before them (and the cache would then answer that count). Asked
    /// this way, the count is never older than the list, so it counts everyone the list names.
    public func refresh(recentLimit: Int = 10) async throws(AccountFailure) -> UsersChange {
        fetchedHere.withLock { $0 = [:] }
        let recent = try await recent(limit: recentLimit)
        let count = try await count()
        return UsersChange(count: count.count, recent: recent.users)
    }
}

struct WireRecentUser: Decodable {
    var username: String
    var createdAt: String

    enum CodingKeys: String, CodingKey {
        case username, createdAt = "created_at"
    }
}
