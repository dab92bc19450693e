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
        let feed = FeedKey(kind: request.feed.kind, value: request.feed.value, source: source)
        try store.write { db in try FeedRows.follow(db, feed, keep: request.keep ?? 30, now: Date()) }
        wakeup.ring()
        return try list()
    }

    /// False when no such feed was followed.
    public func unfollow(_ feed: FeedKey) throws -> Bool {
        try store.write { db in try FeedRows.unfollow(db, feed) }
    }

    public func list() throws -> FeedsListResult {
        try store.read { db in
            FeedsListResult(feeds: try FeedRows.all(db).map { feed in
                let photos = try SearchPages.count(
                    db, source: feed.key.source ?? .unsplash, key: SearchService.paramsKey(Self.searchRequest(feed.key, keep: feed.keep)), page: 1)
                return FeedInfo(feed: feed.key, keep: feed.keep, photos: photos, refreshedAt: feed.refreshedAt)
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
                case .search: try await search.search(Self.searchRequest(info.feed, keep: info.keep, fresh: true), accountId: "")
                }
                // The store's answer (Unsplash failed) is not a refresh: the feed stays due.
                guard !result.stale else {
                    logger.warning("feed \(info.feed.kind.rawValue) '\(info.feed.value)' not refreshed: \(result.staleReason ?? "stale")", metadata: ["splashd_op": "feeds"])
                    continue
                }
                thumbnailsWanted(result.photos.filter { $0.dismissedAt == nil }.map(\.id))
                try store.write { db in try FeedRows.markRefreshed(db, info.feed, at: Date()) }
            } catch {
                logger.warning("feed \(info.feed.kind.rawValue) '\(info.feed.value)' not refreshed: \(error)", metadata: ["splashd_op": "feeds"])
            }
        }
    }

    /// The search a feed is kept as (a topic's pages are kept as `topic:<slug>` searches); `fresh`
    /// asks the source, never the store.
    static func searchRequest(_ feed: FeedKey, keep: Int, fresh: Bool = false) -> PhotosSearchRequest {
        switch feed.kind {
        case .topic: PhotosSearchRequest(query: "topic:\(feed.value)", source: .unsplash, perPage: keep, refresh: fresh ? true : nil)
        case .search: PhotosSearchRequest(query: feed.value, source: feed.source ?? .unsplash, perPage: keep, refresh: fresh ? true : nil)
        }
    }
}
