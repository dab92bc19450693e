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
        config: DaemonConfig, store: Store, state: DaemonState, images: ImageCapability?,
        health: ServiceHealth? = nil, http clients: HTTPClients, logger: Logger
    ) -> SourceCapability {
        guard let http = try? clients.client(config.httpConfiguration, label: "splashd.sources") else {
            return SourceCapability(search: nil, refresher: nil, feeds: nil)
        }
        let search = SearchService(
            store: store, http: http,
            configuration: .init(
                unsplashAPIURL: config.unsplashAPIURL, unsplashAccessKey: config.unsplashAccessKey, nasaAPIURL: config.nasaAPIURL,
                freshFor: .seconds(config.searchFreshSeconds)),
            logger: logger, health: health, thumbnailsWanted: { images?.queue.wantThumbnails($0) })
        let feeds = FeedService(search: search, logger: logger, thumbnailsWanted: { images?.queue.wantThumbnails($0) })
        let refresher = SearchRefresher(search: search, logger: logger) { state.bus.publish(.searchRefreshed($0)) }
        return SourceCapability(search: search, refresher: refresher, feeds: feeds)
    }
}
