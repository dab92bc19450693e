import Connectivity
import Logging
import Shared
import Store
import Synchronization

/// Feeds' thumbnails: a wish list the followed feeds fill, fetched into the evictable cache in the
/// slots the library's own transfers leave free.
extension ImageQueue {
    /// Followed feeds were refreshed: their photos' thumbnails belong in the cache. They are fetched
    /// after every library file, in the slots left free.
    public func wantThumbnails(_ photoIds: [String]) {
        state.withLock { $0.scheduler.thumbnails.add(photoIds) }
        wakeup.ring()
    }

    /// Thumbnail jobs for the slots the library left free. A thumbnail that fails is dropped, not
    /// retried: the next refresh of its feed asks again.
    func startableThumbnails() -> [PhotoFileStore.Missing] {
        let candidates = state.withLock { $0.scheduler.thumbnailCandidates() }
        guard !candidates.isEmpty else { return [] }
        let jobs: [(id: String, job: PhotoFileStore.Missing?)]
        do {
            jobs = try store.read { db in
                try candidates.map { id in
                    let present = try PhotoFileStore.files(db, photoId: id).contains { $0.variant == "thumb" }
                    return (id, present ? nil : try PhotoFileStore.job(db, photoId: id))
                }
            }
        } catch {
            return []
        }
        return state.withLock { state in
            state.scheduler.startThumbnails(jobs) { usable($0, variant: "thumb") }
        }
    }

    /// One photo's thumbnail, fetched now into the cache (a picture is waiting for it); its absolute
    /// path. One the background is fetching already is waited for, not fetched twice.
    public func thumbnailNow(photoId: String) async throws(ImageFailure) -> String {
        let key = "thumb:" + photoId
        while true {
            let found: (present: PhotoFileStore.File?, job: PhotoFileStore.Missing?)
            do {
                found = try store.read { db in
                    (try PhotoFileStore.files(db, photoId: photoId).first { $0.variant == "thumb" }, try PhotoFileStore.job(db, photoId: photoId))
                }
            } catch {
                throw ImageFailure(message: "cannot read the library: \(error)", transient: true)
            }
            if let present = found.present { return configuration.cacheDirectory + "/" + present.path }
            guard let job = found.job else { throw ImageFailure(message: "no photo \(photoId) in the store", transient: false) }
            if let host = host(of: job, variant: "thumb"), let down = health.downReason(host) {
                throw ImageFailure(message: "\(host) does not answer (\(down.reason ?? "unreachable"))", transient: true)
            }
            let claimed = state.withLock { $0.scheduler.claim(key) }
            guard claimed else {
                await untilEnded(key)
                continue
            }
            defer { resume(state.withLock { $0.end(key) }) }
            return try await downloadThumbnail(job)
        }
    }

    func fetchThumbnail(_ job: PhotoFileStore.Missing) async {
        defer { resume(state.withLock { $0.end("thumb:" + job.photoId) }) }
        do throws(ImageFailure) {
            _ = try await downloadThumbnail(job)
            cache.evict(maxBytes: configuration.cacheMaxBytes)
        } catch {
            logger.debug("thumbnail not fetched: \(error.message)", metadata: ["splashd_op": "images", "splashd_photo": "\(job.photoId)"])
        }
    }

    /// A thumbnail into the cache, its host's health told either way and the arrival announced; its
    /// absolute path. The caller holds the job's `thumb:` slot.
    private func downloadThumbnail(_ job: PhotoFileStore.Missing) async throws(ImageFailure) -> String {
        let host = host(of: job, variant: "thumb")
        do throws(ImageFailure) {
            let file = try await download(job, variant: "thumb", inLibrary: false)
            if let host { report(.success(()), host: host) }
            let path = configuration.cacheDirectory + "/" + file.path
            configuration.thumbnailArrived?(job.photoId, path)
            return path
        } catch {
            if let host { report(.failure(error), host: host) }
            throw error
        }
    }
}
