import Clocks
import Connectivity
import Editing
import Foundation
import HTTP
import Library
import Logging
import PhotoSources
import Shared
import Store
import Sync
import Synchronization

/// Image files: the download queue that fills the library (it wakes when a like changes, here or
/// pulled, at sign-in and when the network returns, and otherwise sleeps), and the cache.
struct ImageCapability: Sendable {
    let queue: ImageQueue
    /// Hashes arriving files and reports near-duplicates, apart from the transfers.
    let scanner: DuplicateScanner<AnyClock<Duration>>
    /// Screen-sized copies of large photos, for terminal pictures.
    let renditions: ScreenRenditions<AnyClock<Duration>>
    let cache: ImageCache
    let maxBytes: Int64
    let dataDirectory: String
    let cacheDirectory: String
    /// How a like of a photo not yet compared with the library waits for its file (nil: it does not).
    let likeCheck: LikeActions.ArrivalCheck?

    /// The queue gets an HTTP client of its own: its transfers are long and many, and must neither wait
    /// behind nor hold up the account's and sync's requests. Nil only if libcurl cannot start.
    static func make(
        config: DaemonConfig, store: Store, state: DaemonState, directories: DaemonDirectories,
        network: NetworkGate, background: BackgroundGate, health: ServiceHealth, push: PushEngine?, http clients: HTTPClients,
        clock: AnyClock<Duration>, logger: Logger
    ) -> ImageCapability? {
        var http = config.httpConfiguration
        http.maxConnectionsPerHost = config.imagesConcurrency
        http.maxTotalConnections = max(config.imagesConcurrency, 1)
        let client: HTTPClient
        do {
            client = try clients.client(http, label: "splashd.images")
        } catch {
            logger.error("no image downloads: \(error)", metadata: ["splashd_op": "start"])
            return nil
        }
        var configuration = ImageQueue.Configuration(dataDirectory: directories.data, cacheDirectory: directories.cache)
        configuration.variant = config.imagesVariant
        configuration.concurrency = config.imagesConcurrency
        configuration.maxFileBytes = Int64(config.imagesMaxFileMiB) << 20
        configuration.cacheMaxBytes = config.cacheMaxBytes
        configuration.renditionURL = { urls, variant in Renditions.url(urls, variant: variant) }
        let unsplash = UnsplashDownloadTracker(
            http: client, apiURL: config.unsplashAPIURL, accessKey: config.unsplashAccessKey, logger: logger)
        let editor = ImageEditor(limits: .init(maxPixels: config.imagesMaxMegapixels * 1_000_000))
        let transfers = QueueHandle()
        let downloading: @Sendable () -> Bool = { (transfers.queue.withLock { $0 }?.progress.active ?? 0) > 0 }
        let scanner = DuplicateScanner(
            store: store, dataDirectory: directories.data, threshold: config.duplicateThreshold,
            hash: { path in try? await editor.perceptualHash(URL(fileURLWithPath: path)) },
            accountId: { state.current.account.userId ?? "" },
            transfersActive: downloading, background: background,
            // A released like is sent.
            likesSettled: { push?.ring() }, clock: clock, logger: logger)
        let cache = ImageCache(store: store, cacheDirectory: directories.cache, logger: logger)
        let renditions = ScreenRenditions(
            store: store, cacheDirectory: directories.cache,
            make: { source throws(EditingError) in try await editor.screenRendition(source) },
            transfersActive: downloading, background: background,
            recorded: { [maxBytes = config.cacheMaxBytes] in cache.evict(maxBytes: maxBytes) }, clock: clock, logger: logger)
        configuration.fileArrived = { photoId, path in
            await unsplash.track(photoId: photoId)
            scanner.arrived(photoId: photoId, path: path)
            renditions.wanted(photoId: photoId, source: path)
        }
        // A thumbnail's hash is the photo's (a perceptual hash is taken from a 32×32 reduction): known
        // before any download, it lets a like of a near-duplicate be refused. Not reported: a search
        // result that looks like a library photo is no news until it is liked.
        configuration.thumbnailArrived = { photoId, path in scanner.arrived(photoId: photoId, path: path, report: false) }
        // A like waiting for a file that could not be had is not held back by it.
        configuration.fileFailed = { photoId in scanner.cannotCompare(photoId: photoId) }
        let queue = ImageQueue(
            store: store, http: client, configuration: configuration,
            // Signed out, the guest's liked and edited photos are downloaded too.
            accountId: { state.actingAccount },
            network: network, background: background, health: health, logger: logger,
            changed: { progress in
                state.bus.publish(.imagesChanged(progress))
                if progress.downloading == 0 {
                    scanner.transfersMayHaveEnded()
                    renditions.transfersMayHaveEnded()
                }
            })
        transfers.queue.withLock { $0 = queue }
        _ = state.bus.subscribe(types: [.photoChanged, .accountChanged, .connectivityChanged], snapshot: {}) { _ in queue.ring() }
        return ImageCapability(
            queue: queue, scanner: scanner, renditions: renditions, cache: cache,
            maxBytes: config.cacheMaxBytes, dataDirectory: directories.data, cacheDirectory: directories.cache,
            likeCheck: config.duplicateCheckSeconds <= 0 ? nil : LikeActions.ArrivalCheck(
                seconds: TimeInterval(config.duplicateCheckSeconds),
                // A file can come when the photo names one, its host is not known to be down, and downloads
                // are not held (a metered network).
                canArrive: { [variant = config.imagesVariant] urls in
                    background.allowsTransfers
                        && (Renditions.url(urls, variant: variant).flatMap(ImageQueue.host(of:)).map(health.usable) ?? false)
                }))
    }
}

/// The queue, once made, for the scanner made before it (the queue hands the scanner its arrivals; the
/// scanner asks the queue whether files are downloading).
private final class QueueHandle: Sendable {
    let queue = Mutex<ImageQueue?>(nil)
}
