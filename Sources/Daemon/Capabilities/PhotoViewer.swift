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
            throw DaemonFailure.photoNotInStore(id: id)
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
        let terminal = request.terminal
        // Each task answers with its position and a plain value. The release build (Swift 6.3.1, -O)
        // answered with positions that did not match the ids when a task's result was a tuple of an Int
        // and a Result<_, any Error>: the debug build and the tests did not show it, the bench did.
        let drawn = await withTaskGroup(of: DrawnPicture.self, returning: [DrawnPicture].self) { group in
            var waiting = Array(request.ids.enumerated()).makeIterator()
            var drawn: [DrawnPicture] = []
            var running = 0
            while drawn.count < request.ids.count {
                while running < 2, let (position, id) = waiting.next() {
                    running += 1
                    group.addTask {
                        do {
                            return DrawnPicture(position: position, id: id, picture: try await picture(PhotosPictureRequest(id: id, terminal: terminal)))
                        } catch {
                            let reason = (error as? RPCError)?.message ?? WireErrors.rpcError(for: error)?.message ?? "\(error)"
                            return DrawnPicture(position: position, id: id, reason: reason)
                        }
                    }
                }
                guard let one = await group.next() else { break }
                running -= 1
                drawn.append(one)
            }
            return drawn
        }
        let ordered = drawn.sorted { $0.position < $1.position }
        return PhotoPictures(
            pictures: ordered.compactMap(\.picture),
            missing: ordered.compactMap { drawn in drawn.reason.map { PictureMissing(id: drawn.id, reason: $0) } })
    }

    /// One photo of `pictures`: drawn, or why not.
    struct DrawnPicture: Sendable {
        var position: Int
        var id: String
        var picture: PhotoPicture?
        var reason: String?
    }

    /// A photo drawn for a terminal: from its library file (the original, else an edit's rendering),
    /// else a file in the cache (the largest), else a thumbnail fetched now — through the file's screen
    /// copy when it has one made from it and the picture is small enough (see ScreenRendition). A large
    /// file drawn without a copy gets one made, for the next time.
    func picture(_ request: PhotosPictureRequest) async throws -> PhotoPicture {
        guard let pictures else { throw CapabilityMissing("pictures") }
        guard let terminal = pictures.terminal(for: request.terminal) else {
            return PhotoPicture(id: request.id, text: "", columns: 0, rows: 0, from: .notDrawn, path: "")
        }
        guard let listed = try library.files(photoId: request.id, dataDirectory: dataDirectory, cacheDirectory: cacheDirectory) else {
            throw DaemonFailure.photoNotInStore(id: request.id)
        }
        let present = listed.filter(\.present)
        let copy = present.first { $0.variant == ScreenRendition.variant }
        let files = present.filter { $0.variant != ScreenRendition.variant }
        let inLibrary = files.filter { $0.location == .library }
        var origin = PhotoPicture.Origin.library
        var chosen = inLibrary.first { !$0.variant.hasPrefix("edit:") } ?? inLibrary.first
        if chosen == nil, let cached = files.max(by: { $0.bytes < $1.bytes }) {
            (origin, chosen) = (.cache, cached)
        }
        // A copy made from the file chosen (its row is younger), or the only picture of the photo left.
        let usableCopy = copy.flatMap { copy in (chosen.map { copy.createdAt >= $0.createdAt } ?? true) ? copy : nil }
        var path = chosen?.path
        if path == nil, let usableCopy { (origin, path) = (.screen, usableCopy.path) }
        if path == nil {
            guard let images else { throw DaemonFailure.noPictureHere(id: request.id, offline: true) }
            do throws(ImageFailure) {
                (origin, path) = (.fetched, try await images.queue.thumbnailNow(photoId: request.id))
            } catch {
                throw WireErrors.image(error, photoId: request.id, forEdit: false)
            }
        }
        guard let path else { throw DaemonFailure.noPictureHere(id: request.id, offline: false) }
        let drawn: TerminalPictures.Drawn
        do throws(EditingError) {
            drawn = try await pictures.draw(
                file: path, copy: origin == .screen ? nil : usableCopy?.path, fetched: origin == .fetched, for: terminal)
        } catch {
            throw DaemonFailure.pictureCannotBeDrawn(id: request.id, path: path, reason: error.description)
        }
        if let copyPath = drawn.copy {
            return PhotoPicture(id: request.id, text: drawn.text, columns: drawn.columns, rows: drawn.rows, from: .screen, path: copyPath,
                mode: terminal.mode)
        }
        if usableCopy == nil, !drawn.fromMemory, origin == .library || origin == .cache {
            images?.renditions.wanted(photoId: request.id, source: path)
        }
        return PhotoPicture(
            id: request.id, text: drawn.text, columns: drawn.columns, rows: drawn.rows, from: origin, path: path, mode: terminal.mode)
    }
}
