import Connectivity
import HTTP
import Logging
import PhotoSources
import Shared
import Store
import Sync

/// Photo sources: searches (and their background refreshes), topics and followed feeds, kept in the
/// store. All nil only if libcurl cannot start.
struct SourceCapability: Sendable {
    let search: SearchService?
    let refresher: SearchRefresher?
    let feeds: FeedService?

    static func make(
        config: DaemonConfig, store: Store, state: DaemonState, counter: LibraryCounter, images: ImageCapability?,
        health: ServiceHealth? = nil, logger: Logger
    ) -> SourceCapability {
        guard let http = try? HTTPClient(configuration: config.httpConfiguration, logger: Logger(label: "splashd.sources")) else {
            return SourceCapability(search: nil, refresher: nil, feeds: nil)
        }
        let search = SearchService(
            store: store, http: http,
            configuration: .init(
                unsplashAPIURL: config.unsplashAPIURL, unsplashAccessKey: config.unsplashAccessKey, nasaAPIURL: config.nasaAPIURL,
                freshFor: .seconds(config.searchFreshSeconds)),
            logger: logger, health: health, thumbnailsWanted: { Self.answered($0, images: images, counter: counter) })
        let feeds = FeedService(search: search, logger: logger, thumbnailsWanted: { Self.answered($0, images: images, counter: counter) })
        let refresher = SearchRefresher(search: search, logger: logger) { state.bus.publish(.searchRefreshed($0)) }
        return SourceCapability(search: search, refresher: refresher, feeds: feeds)
    }

    /// A source stored an answer's photos (a search, a random pick, a topic, a feed, a background
    /// refresh) and wants the thumbnails of `ids`: they are fetched, and the library's counts move now —
    /// its photo count stayed as it was until an unrelated refresh moved it, seconds later.
    private static func answered(_ ids: [String], images: ImageCapability?, counter: LibraryCounter) {
        images?.queue.wantThumbnails(ids)
        counter.refresh()
    }
}
