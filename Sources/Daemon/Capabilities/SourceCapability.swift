import HTTP
import Logging
import PhotoSources
import Store
import Sync

/// Photo sources: searches, topics and followed feeds, kept in the store. Both nil only if libcurl
/// cannot start.
struct SourceCapability: Sendable {
    let search: SearchService?
    let feeds: FeedService?

    static func make(config: DaemonConfig, store: Store, images: ImageCapability?, logger: Logger) -> SourceCapability {
        guard let http = try? HTTPClient(configuration: config.httpConfiguration, logger: Logger(label: "splashd.sources")) else {
            return SourceCapability(search: nil, feeds: nil)
        }
        let search = SearchService(
            store: store, http: http,
            configuration: .init(unsplashAPIURL: config.unsplashAPIURL, unsplashAccessKey: config.unsplashAccessKey, nasaAPIURL: config.nasaAPIURL),
            logger: logger)
        let feeds = FeedService(search: search, logger: logger, thumbnailsWanted: { images?.queue.wantThumbnails($0) })
        return SourceCapability(search: search, feeds: feeds)
    }
}
