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
        network: NetworkGate = .alwaysOnline, duplicateThreshold: Int = 8, pictures: PictureCapability? = nil
    ) {
        let viewer = PhotoViewer(
            state: state, library: library, images: images, search: search, network: network, duplicateThreshold: duplicateThreshold,
            pictures: pictures)
        router.register(PhotosShowRequest.self) { request, _ in
            try await viewer.show(id: request.id)
        }
        router.register(PhotosPictureRequest.self) { request, _ in
            try await viewer.picture(request)
        }
        router.register(PhotosPicturesRequest.self) { request, _ in
            await viewer.pictures(request)
        }
        router.register(CacheStatusRequest.self) { _, _ in
            try viewer.cacheUsage()
        }

        router.register(CachePruneRequest.self) { request, _ in
            guard let images else { throw CapabilityMissing("image files") }
            let pruned = images.cache.evict(maxBytes: request.keepBytes ?? 0)
            return CachePruneResult(removedFiles: pruned.files, removedBytes: pruned.bytes, cacheBytes: try library.fileUsage().cacheBytes)
        }
    }
}
