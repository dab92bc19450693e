import Foundation
import GRDB
import Logging
import ServiceLifecycle
import Shared
import Store

/// Followed feeds: a topic or a search whose newest photos are kept fresh. Refreshed when followed,
/// then on a schedule while there is anything to follow; background refreshes stop while Unsplash's
/// hourly budget is low, leaving it to what the person asks for.
public final class FeedService: Service, Sendable {
    private let search: SearchService
    private let interval: Duration
    private let logger: Logger
    private let wakeup = Wakeup()
    /// Requests left in Unsplash's hour below which background work waits.
    public static let reserve = 20

    /// Told the photos of each refreshed feed, so their thumbnails are fetched into the cache.
    private let thumbnailsWanted: @Sendable ([String]) -> Void

    public init(
        search: SearchService, interval: Duration = .seconds(1800), logger: Logger,
        thumbnailsWanted: @escaping @Sendable ([String]) -> Void = { _ in }
    ) {
        self.search = search
        self.interval = interval
        self.logger = logger
        self.thumbnailsWanted = thumbnailsWanted
    }

    var store: Store { search.store }

    public func follow(_ request: FeedsFollowRequest) throws -> FeedsListResult {
        let source = request.feed.source ?? .unsplash
        try store.write { db in
            try db.execute(sql: """
                INSERT INTO feeds (kind, source, value, keep, created_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (kind, source, value) DO UPDATE SET keep = excluded.keep
                """, arguments: [request.feed.kind.rawValue, source.rawValue, request.feed.value, request.keep ?? 30, Date()])
        }
        wakeup.ring()
        return try list()
    }

    /// False when no such feed was followed.
    public func unfollow(_ feed: FeedKey) throws -> Bool {
        try store.write { db in
            try db.execute(
                sql: "DELETE FROM feeds WHERE kind = ? AND source = ? AND value = ?",
                arguments: [feed.kind.rawValue, (feed.source ?? .unsplash).rawValue, feed.value])
            return db.changesCount > 0
        }
    }

    public func list() throws -> FeedsListResult {
        try store.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT kind, source, value, keep, refreshed_at FROM feeds ORDER BY created_at")
            return FeedsListResult(feeds: try rows.map { row in
                let key = FeedKey(kind: FeedKey.Kind(rawValue: row["kind"]) ?? .search, value: row["value"], source: PhotoSource(rawValue: row["source"]))
                let keep: Int = row["keep"]
                let photos = try Int.fetchOne(db, sql: """
                    SELECT count(*) FROM search_results r JOIN searches s ON s.id = r.search_id
                    WHERE s.source = ? AND s.params_key = ? AND r.page = 1
                    """, arguments: [(key.source ?? .unsplash).rawValue, SearchService.paramsKey(Self.searchRequest(key, keep: keep))]) ?? 0
                return FeedInfo(feed: key, keep: keep, photos: photos, refreshedAt: row["refreshed_at"])
            })
        }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.loop() }
    }

    private func loop() async {
        while !Task.isCancelled {
            let feeds = (try? list().feeds) ?? []
            await refresh(feeds)
            // With nothing followed, nothing is due: no timer.
            await wakeup.wait(until: feeds.isEmpty ? nil : .now + interval * Double.random(in: 0.8...1.2))
        }
    }

    /// Refreshes each feed once; stops early when the budget is low.
    func refresh(_ feeds: [FeedInfo]) async {
        for info in feeds {
            if (info.feed.source ?? .unsplash) == .unsplash, let remaining = search.unsplashBudgetRemaining, remaining < Self.reserve {
                logger.notice("feed refresh paused: \(remaining) Unsplash requests left this hour", metadata: ["splashd_op": "feeds"])
                return
            }
            do {
                let result = switch info.feed.kind {
                case .topic: try await search.topicPhotos(TopicPhotosRequest(slug: info.feed.value, perPage: info.keep), accountId: "")
                case .search: try await search.search(Self.searchRequest(info.feed, keep: info.keep), accountId: "")
                }
                thumbnailsWanted(result.photos.filter { $0.dismissedAt == nil }.map(\.id))
                try store.write { db in
                    try db.execute(
                        sql: "UPDATE feeds SET refreshed_at = ? WHERE kind = ? AND source = ? AND value = ?",
                        arguments: [Date(), info.feed.kind.rawValue, (info.feed.source ?? .unsplash).rawValue, info.feed.value])
                }
            } catch {
                logger.warning("feed \(info.feed.kind.rawValue) '\(info.feed.value)' not refreshed: \(error)", metadata: ["splashd_op": "feeds"])
            }
        }
    }

    /// The search a feed is kept as (a topic's pages are kept as `topic:<slug>` searches).
    static func searchRequest(_ feed: FeedKey, keep: Int) -> PhotosSearchRequest {
        switch feed.kind {
        case .topic: PhotosSearchRequest(query: "topic:\(feed.value)", source: .unsplash, perPage: keep)
        case .search: PhotosSearchRequest(query: feed.value, source: feed.source ?? .unsplash, perPage: keep)
        }
    }
}
