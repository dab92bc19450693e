#if canImport(Glibc)
import Glibc
#endif
import Control
import Editing
import Foundation
import GRDB
import HTTP
import Library
import Logging
import PhotoSources
import Shared
import Store
import Sync

/// Image files: the download queue that fills the library, the cache, and the methods that show them.
struct ImageCapability: Sendable {
    let queue: ImageQueue
    let cache: ImageCache
    let maxBytes: Int64
    let dataDirectory: String
    let cacheDirectory: String
}

enum ImageRoutes {
    /// The queue gets an HTTP client of its own: its transfers are long and many, and must neither wait
    /// behind nor hold up the account's and sync's requests. Nil only if libcurl cannot start.
    static func makeCapability(
        config: DaemonConfig, store: Store, state: DaemonState, directories: DaemonDirectories, network: NetworkGate, logger: Logger
    ) -> ImageCapability? {
        var http = config.httpConfiguration
        http.maxConnectionsPerHost = config.imagesConcurrency
        http.maxTotalConnections = max(config.imagesConcurrency, 1)
        let client: HTTPClient
        do {
            client = try HTTPClient(configuration: http, logger: Logger(label: "splashd.images"))
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
        // A saved remote photo that looks like one already in the library is reported (NicePhotoApp
        // refused such photos; here the like stands, and the person is told).
        let editor = ImageEditor(limits: .init(maxPixels: config.imagesMaxMegapixels * 1_000_000))
        let threshold = config.duplicateThreshold
        configuration.fileArrived = { photoId, path in
            await unsplash.track(photoId: photoId)
            guard let hash = try? await editor.perceptualHash(URL(fileURLWithPath: path)) else { return }
            let accountId = state.current.account.userId ?? ""
            let duplicates = try? store.write { db in
                try db.execute(sql: "UPDATE photos SET phash = ? WHERE id = ?", arguments: [Int64(bitPattern: hash.value), photoId])
                return try DuplicateFinder.duplicates(of: photoId, accountId: accountId, threshold: threshold, db: db)
            }
            if let nearest = duplicates?.first {
                logger.notice("\(photoId) looks like \(nearest.id), already in the library (\(nearest.distance) bits apart)", metadata: [
                    "splashd_op": "images", "splashd_photo": "\(photoId)", "splashd_duplicate_of": "\(nearest.id)",
                ])
            }
        }
        let queue = ImageQueue(
            store: store, http: client, configuration: configuration,
            accountId: {
                let account = state.current.account
                return account.state == .signedOut ? nil : account.userId
            },
            network: network, logger: logger,
            changed: { progress in
                state.bus.publish(.imagesChanged(progress))
                // A file arrived: the library's file and byte counts in status and library.changed move too.
                if progress.change == .finished, let counts = try? store.read({ db in
                    try CountsQuery.library(db, accountId: state.current.account.userId ?? "")
                }) {
                    state.setLibrary(counts)
                }
            })
        return ImageCapability(
            queue: queue, cache: ImageCache(store: store, cacheDirectory: directories.cache, logger: logger),
            maxBytes: config.cacheMaxBytes, dataDirectory: directories.data, cacheDirectory: directories.cache)
    }

    static func register(
        into router: inout Router, state: DaemonState, store: Store, images: ImageCapability?, search: SearchService? = nil,
        network: NetworkGate = .alwaysOnline, duplicateThreshold: Int = 8
    ) {
        router.register(PhotosShowRequest.self) { request, _ in
            // The first show of a remote photo completes its metadata (exif, location, NASA's
            // renditions) when online, within a few seconds; otherwise it answers from the store.
            if let search, network.isOnline() {
                _ = await withTaskGroup(of: Bool.self) { group in
                    group.addTask { (try? await search.completeDetails(photoId: request.id)) ?? false }
                    group.addTask {
                        try? await Task.sleep(for: .seconds(5))
                        return false
                    }
                    let first = await group.next() ?? false
                    group.cancelAll()
                    return first
                }
            }
            let accountId = state.current.account.userId ?? ""
            guard var detail = try store.read({ db in try PhotoDetailQuery.fetch(db, id: request.id, accountId: state.current.account.userId ?? "") }) else {
                throw RPCError(.notFound, "no photo \(request.id) in the store; splashctl photos list shows what is here", field: "id")
            }
            let files = try store.read { db in try PhotoFileStore.files(db, photoId: request.id) }
            detail.files = files.map { file in
                let base = file.inLibrary ? (images?.dataDirectory ?? state.status().directories.data) : (images?.cacheDirectory ?? state.status().directories.cache)
                let path = file.path.hasPrefix("/") ? file.path : base + "/" + file.path
                return PhotoFileInfo(
                    variant: file.variant, path: path, bytes: file.bytes, location: file.inLibrary ? .library : .cache,
                    present: access(path, F_OK) == 0, checksum: file.checksum, createdAt: file.createdAt, lastAccessAt: file.lastAccessAt)
            }
            detail.duplicates = try store.read { db in
                try DuplicateFinder.duplicates(of: request.id, accountId: accountId, threshold: duplicateThreshold, db: db)
            }.map { NearDuplicate(id: $0.id, distance: $0.distance) }
            switch images?.queue.state(of: request.id) {
            case .downloading(let bytes, let total)?:
                detail.download = DownloadStatus(state: .downloading, bytes: bytes, total: total)
            case .waiting(let attempts, let lastError, let status, let next)?:
                detail.download = DownloadStatus(state: .waiting, attempts: attempts, lastError: lastError, httpStatus: status, nextAttemptAt: next)
            case nil:
                break
            }
            return detail
        }

        router.register(CacheStatusRequest.self) { _, _ in
            let usage = try store.read { db in try PhotoFileStore.usage(db) }
            let progress = images?.queue.progress ?? ImageQueue.Progress()
            let directories = state.status().directories
            return CacheUsage(
                libraryBytes: usage.libraryBytes, libraryFiles: usage.libraryFiles, cacheBytes: usage.cacheBytes,
                cacheFiles: usage.cacheFiles, maxBytes: images?.maxBytes ?? 0,
                libraryDirectory: (images?.dataDirectory ?? directories.data) + "/library",
                cacheDirectory: images?.cacheDirectory ?? directories.cache,
                downloading: progress.active, waiting: progress.failing)
        }

        router.register(CachePruneRequest.self) { request, _ in
            guard let images else { throw RPCError(.internalError, "image files are not available in this daemon (see its log)") }
            let pruned = images.cache.evict(maxBytes: request.keepBytes ?? 0)
            let usage = try store.read { db in try PhotoFileStore.usage(db) }
            return CachePruneResult(removedFiles: pruned.files, removedBytes: pruned.bytes, cacheBytes: usage.cacheBytes)
        }
    }
}
