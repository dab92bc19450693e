import Control
import PhotoSources
import Shared

/// `photos.search` and `search.history`.
enum SourceRoutes {
    /// Runs a source call; without sources (no HTTP client) the request is `offline`.
    static func sourced<T>(_ search: SearchService?, _ body: (SearchService) async throws -> T) async throws -> T {
        guard let search else { throw DaemonFailure.photoSourcesUnavailable }
        return try await body(search)
    }

    static func register(into router: inout Router, state: DaemonState, search: SearchService?, feeds: FeedService?) {
        router.register(FeedsFollowRequest.self) { request, _ in
            guard let feeds else { throw DaemonFailure.photoSourcesUnavailable }
            return try feeds.follow(request)
        }
        router.register(FeedsUnfollowRequest.self) { request, _ in
            guard let feeds else { throw DaemonFailure.photoSourcesUnavailable }
            guard try feeds.unfollow(request.feed) else {
                throw DaemonFailure.notFollowing(kind: request.feed.kind.rawValue, value: request.feed.value)
            }
            return try feeds.list()
        }
        router.register(FeedsListRequest.self) { _, _ in
            try feeds?.list() ?? FeedsListResult(feeds: [])
        }
        router.register(PhotosSearchRequest.self) { request, _ in
            try await sourced(search) { search in
                try await search.search(request, accountId: state.current.account.userId ?? "")
            }
        }
        router.register(PhotosRandomRequest.self) { request, _ in
            try await sourced(search) { search in
                try await search.random(request, accountId: state.current.account.userId ?? "")
            }
        }
        router.register(TopicsListRequest.self) { request, _ in
            try await sourced(search) { search in try await search.topics(request) }
        }
        router.register(TopicPhotosRequest.self) { request, _ in
            try await sourced(search) { search in
                try await search.topicPhotos(request, accountId: state.current.account.userId ?? "")
            }
        }
        router.register(PhotosStatsRequest.self) { request, _ in
            try await sourced(search) { search in try await search.stats(request) }
        }
        router.register(SearchHistoryRequest.self) { request, _ in
            guard let search else { return SearchHistoryResult(searches: []) }
            return try search.history(source: request.source)
        }
    }
}
