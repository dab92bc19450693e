import Editing
import Library
import PhotoSources
import Pictures
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
    let pictures: PictureCapability?

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
            throw RPCError(.notFound, "no photo \(id) in the store; splashctl photos list shows what is here", field: "id")
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
            cacheDirectory: cacheDirectory, downloading: progress.active, waiting: progress.failing, pictures: pictures?.tiers)
    }

    /// Several photos drawn, two at a time (the cores' worth): those that cannot be drawn say why.
    func pictures(_ request: PhotosPicturesRequest) async -> PhotoPictures {
        var drawn: [Int: PhotoPicture] = [:]
        var missing: [Int: PictureMissing] = [:]
        await withTaskGroup(of: (Int, Result<PhotoPicture, any Error>).self) { group in
            // Each task gets its index and id by value (a capture list): read when the task runs, a
            // counter shared with the loop would have moved on.
            var waiting = request.ids.enumerated().makeIterator()
            func startNext() {
                guard let (index, id) = waiting.next() else { return }
                group.addTask { [index, id, terminal = request.terminal] in
                    do {
                        return (index, .success(try await picture(PhotosPictureRequest(id: id, terminal: terminal))))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            startNext()
            startNext()
            for await (index, result) in group {
                switch result {
                case .success(let picture): drawn[index] = picture
                case .failure(let error):
                    let reason = (error as? RPCError)?.message ?? WireErrors.rpcError(for: error)?.message ?? "\(error)"
                    missing[index] = PictureMissing(id: request.ids[index], reason: reason)
                }
                startNext()
            }
        }
        return PhotoPictures(
            pictures: drawn.sorted { $0.key < $1.key }.map(\.value), missing: missing.sorted { $0.key < $1.key }.map(\.value))
    }

    /// A photo drawn for a terminal: from its library file, else a file in the cache (the largest),
    /// else a thumbnail fetched now.
    func picture(_ request: PhotosPictureRequest) async throws -> PhotoPicture {
        guard let pictures else { throw CapabilityMissing("pictures") }
        guard let files = try library.files(photoId: request.id, dataDirectory: dataDirectory, cacheDirectory: cacheDirectory) else {
            throw RPCError(.notFound, "no photo \(request.id) in the store; splashctl photos list shows what is here", field: "id")
        }
        let present = files.filter(\.present)
        var origin = PhotoPicture.Origin.library
        var path = present.first { $0.location == .library }?.path
        if path == nil, let cached = present.max(by: { $0.bytes < $1.bytes }) {
            (origin, path) = (.cache, cached.path)
        }
        if path == nil {
            guard let images else {
                throw RPCError(.offline, "no picture of \(request.id) is on this machine, and downloads are unavailable")
            }
            do throws(ImageFailure) {
                (origin, path) = (.fetched, try await images.queue.thumbnailNow(photoId: request.id))
            } catch {
                throw RPCError(error.transient ? .offline : .notFound, "no picture of \(request.id) is on this machine: \(error.message)")
            }
        }
        guard let path else { throw RPCError(.notFound, "no picture of \(request.id)") }
        do throws(EditingError) {
            let drawn = try await pictures.draw(file: path, fetched: origin == .fetched, for: request.terminal)
            return PhotoPicture(id: request.id, text: drawn.text, columns: drawn.columns, rows: drawn.rows, from: origin, path: path)
        } catch {
            throw RPCError(.invalidInput, "the picture of \(request.id) cannot be drawn from \(path): \(error.description)", field: "id")
        }
    }
}
