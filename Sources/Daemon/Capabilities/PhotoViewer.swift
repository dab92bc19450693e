import Library
import PhotoSources
import Shared
import Store
import Sync

/// What `photos.show` and `cache.status` answer: the library's view of a photo or of its files, with
/// what the image queue and the photo sources add when the daemon has them (a daemon without them
/// still answers from the store, in its own directories).
struct PhotoViewer: Sendable {
    let state: DaemonState
    let library: PhotoLibrary
    let images: ImageCapability?
    let search: SearchService?
    let network: NetworkGate
    let duplicateThreshold: Int

    private var dataDirectory: String { images?.dataDirectory ?? state.status().directories.data }
    private var cacheDirectory: String { images?.cacheDirectory ?? state.status().directories.cache }

    /// The first show of a remote photo completes its metadata (exif, location, NASA's renditions)
    /// when online, within a few seconds; otherwise it answers from the store.
    func show(id: String) async throws -> PhotoDetail {
        // Its source is asked, whatever the backend's state (a source known down is not waited for).
        if let search { await search.completeDetails(photoId: id, within: .seconds(5)) }
        guard var detail = try library.detail(
            id: id, accountId: state.current.account.userId ?? "", duplicateThreshold: duplicateThreshold,
            dataDirectory: dataDirectory, cacheDirectory: cacheDirectory)
        else {
            throw RPCError(.notFound, .photoNotInStore(id: id), field: "id")
        }
        detail.download = images?.queue.downloadStatus(of: id)
        return detail
    }

    /// The library's and the cache's files, and what the image queue is doing.
    func cacheUsage() throws -> CacheUsage {
        let usage = try library.fileUsage()
        let progress = images?.queue.progress ?? ImageQueue.Progress()
        return CacheUsage(
            libraryBytes: usage.libraryBytes, libraryFiles: usage.libraryFiles, cacheBytes: usage.cacheBytes,
            cacheFiles: usage.cacheFiles, maxBytes: images?.maxBytes ?? 0, libraryDirectory: dataDirectory + "/library",
            cacheDirectory: cacheDirectory, downloading: progress.active, waiting: progress.failing)
    }
}
