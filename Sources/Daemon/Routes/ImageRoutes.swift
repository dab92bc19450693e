import Control
import Library
import PhotoSources
import Shared
import Store
import Sync

/// `photos.show` and the cache's methods.
enum ImageRoutes {
    static func register(
        into router: inout Router, state: DaemonState, library: PhotoLibrary, images: ImageCapability?, search: SearchService? = nil,
        network: NetworkGate = .alwaysOnline, duplicateThreshold: Int = 8
    ) {
        router.register(PhotosShowRequest.self) { request, _ in
            // The first show of a remote photo completes its metadata (exif, location, NASA's
            // renditions) when online, within a few seconds; otherwise it answers from the store.
            if let search, network.isOnline() { await search.completeDetails(photoId: request.id, within: .seconds(5)) }
            let directories = state.status().directories
            guard var detail = try library.detail(
                id: request.id, accountId: state.current.account.userId ?? "", duplicateThreshold: duplicateThreshold,
                dataDirectory: images?.dataDirectory ?? directories.data, cacheDirectory: images?.cacheDirectory ?? directories.cache)
            else {
                throw RPCError(.notFound, "no photo \(request.id) in the store; splashctl photos list shows what is here", field: "id")
            }
            detail.download = images?.queue.downloadStatus(of: request.id)
            return detail
        }

        router.register(CacheStatusRequest.self) { _, _ in
            let usage = try library.fileUsage()
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
            guard let images else { throw CapabilityMissing("image files") }
            let pruned = images.cache.evict(maxBytes: request.keepBytes ?? 0)
            return CachePruneResult(removedFiles: pruned.files, removedBytes: pruned.bytes, cacheBytes: try library.fileUsage().cacheBytes)
        }
    }
}
