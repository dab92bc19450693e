#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP
import Logging
import ServiceLifecycle
import Shared
import Store
import Support
import Synchronization

/// Downloads the library: every photo the signed-in account likes gets its configured variant as a file
/// under `<data>/library/`, recorded in `photo_files` only once it is complete, verified and renamed into
/// place.
///
/// Idle means asleep: the queue works through what is missing, then waits for a ring (likes changed, a
/// pull finished, the network came back, someone signed in) or for the earliest retry. Transfers run in
/// parallel over one HTTP client (one curl multi handle). A kill -9 loses at most the unfinished tail of
/// the files in flight: their `.part` files resume with Range at the next start, and finished files are
/// never fetched again (they have a row).
public final class ImageQueue: Service, Sendable {
    public struct Configuration: Sendable {
        public var dataDirectory: String
        public var cacheDirectory: String
        /// The `photos.urls` key the library keeps (falls back to other renditions a source lacks it).
        public var variant = "regular"
        public var concurrency = 8
        public var cacheMaxBytes: Int64 = 1 << 30
        /// A file over this size is refused (an endless or absurd body must not fill the disk).
        public var maxFileBytes: Int64 = 48 << 20
        /// 1 s doubling to 5 min, jittered, per file.
        public var backoff = Backoff(minimum: .seconds(1), maximum: .seconds(300), jitter: 0.5)
        /// Unsplash's API terms: a photo that enters the library counts as a download
        /// (`GET /photos/<id>/download`). Without a key nothing is tracked.
        public var unsplashAPIURL: String?
        public var unsplashAccessKey: String?

        /// Called with the photo id and the file's absolute path after a library file is recorded
        /// (the daemon takes its perceptual hash there, to report near-duplicates).
        public var fileArrived: (@Sendable (String, String) async -> Void)?

        public init(dataDirectory: String, cacheDirectory: String) {
            self.dataDirectory = dataDirectory
            self.cacheDirectory = cacheDirectory
        }
    }

    /// What the queue is doing about one photo, for `photos.show`.
    public enum PhotoState: Sendable, Equatable {
        case downloading(bytes: Int64, total: Int64?)
        case waiting(attempts: Int, lastError: String, status: Int?, nextAttempt: Date)
    }

    /// Totals for progress events and `cache`.
    public struct Progress: Sendable, Equatable {
        public var active = 0
        public var failing = 0
        public var finished = 0
        public var bytes: Int64 = 0
        public init() {}
    }

    private struct Retry {
        var attempts: Int
        var lastError: String
        var status: Int?
        var due: ContinuousClock.Instant
        var dueDate: Date
    }

    private struct State {
        /// Photos of followed feeds whose thumbnail is wanted in the cache, oldest wish first.
        var thumbnails: [String] = []
        var retries: [String: Retry] = [:]
        var active: [String: (bytes: Int64, total: Int64?)] = [:]
        var finished = 0
        var bytes: Int64 = 0
    }

    public let configuration: Configuration
    private let store: Store
    private let http: HTTPClient
    private let accountId: @Sendable () async -> String?
    private let network: NetworkGate
    private let logger: Logger
    private let changed: @Sendable (ImagesProgress) -> Void
    private let wakeup = Wakeup()
    private let state = Mutex(State())
    /// Made before the control socket listens: no edit of this process is older.
    private let created = Date()

    public init(
        store: Store, http: HTTPClient, configuration: Configuration, accountId: @escaping @Sendable () async -> String?,
        network: NetworkGate = .alwaysOnline, logger: Logger, changed: @escaping @Sendable (ImagesProgress) -> Void = { _ in }
    ) {
        self.store = store
        self.http = http
        self.configuration = configuration
        self.accountId = accountId
        self.network = network
        self.logger = logger
        self.changed = changed
    }

    /// The most thumbnails waiting at once; older wishes are dropped first (a feed refresh asks again).
    static let thumbnailBacklog = 2000

    /// Followed feeds were refreshed: their photos' thumbnails belong in the cache. They are fetched
    /// after every library file, in the slots left free.
    public func wantThumbnails(_ photoIds: [String]) {
        state.withLock { state in
            let known = Set(state.thumbnails)
            state.thumbnails += photoIds.filter { !known.contains($0) }
            if state.thumbnails.count > Self.thumbnailBacklog { state.thumbnails.removeFirst(state.thumbnails.count - Self.thumbnailBacklog) }
        }
        wakeup.ring()
    }

    /// Likes changed, a pull finished, the network is back, a sign-in: look for missing files.
    public func ring() {
        wakeup.ring()
    }

    private var cache: ImageCache { ImageCache(store: store, cacheDirectory: configuration.cacheDirectory, logger: logger) }
    private var mover: ImageMover {
        ImageMover(store: store, dataDirectory: configuration.dataDirectory, cacheDirectory: configuration.cacheDirectory, logger: logger)
    }

    public func run() async throws {
        cache.evict(maxBytes: configuration.cacheMaxBytes)
        await cancelWhenGracefulShutdown { await self.loop() }
        http.shutdown()
    }

    public func state(of photoId: String) -> PhotoState? {
        state.withLock { state in
            if let active = state.active[photoId] { return .downloading(bytes: active.bytes, total: active.total) }
            if let retry = state.retries[photoId] {
                return .waiting(attempts: retry.attempts, lastError: retry.lastError, status: retry.status, nextAttempt: retry.dueDate)
            }
            return nil
        }
    }

    public var progress: Progress {
        state.withLock { state in
            var progress = Progress()
            progress.active = state.active.count
            progress.failing = state.retries.count
            progress.finished = state.finished
            progress.bytes = state.bytes + state.active.values.reduce(0) { $0 + $1.bytes }
            return progress
        }
    }

    /// Starts what is missing and due, up to `concurrency` at once, then sleeps until a ring (a like, a
    /// finished transfer) or the earliest retry. New likes start while older transfers still run: one
    /// stalled file never holds up the rest.
    private func loop() async {
        await withDiscardingTaskGroup { group in
            var swept = false
            while !Task.isCancelled {
                var deadline: ContinuousClock.Instant?
                if let account = await accountId() {
                    if !swept {
                        // Before this process starts any transfer or move: nothing of its own can be in
                        // flight. Rows first, so that the sweep knows every file a row points at.
                        _ = mover.pointRowsAtTheirFiles()
                        sweepStale(accountId: account)
                        swept = true
                    }
                    // Local moves need no network: unliked files become cache, re-liked ones library again.
                    let moved = mover.reconcile(accountId: account, variant: configuration.variant)
                    if moved.unpinned > 0 { cache.evict(maxBytes: configuration.cacheMaxBytes) }
                }
                if network.isOnline() {
                    if let account = await accountId() {
                        for job in startable(accountId: account) {
                            group.addTask {
                                await self.fetch(job)
                                self.wakeup.ring()
                            }
                        }
                    }
                    // Feeds need no account: their thumbnails come whoever is signed in.
                    for job in startableThumbnails() {
                        group.addTask {
                            await self.fetchThumbnail(job)
                            self.wakeup.ring()
                        }
                    }
                    // Only future retries set a timer: one already due but not started waits for a free slot,
                    // and a finished transfer rings (a past deadline here would spin).
                    let now = ContinuousClock.now
                    deadline = state.withLock { $0.retries.values.map(\.due).filter { $0 > now }.min() }
                }
                await wakeup.wait(until: deadline)
            }
        }
    }

    /// Missing files that are neither in flight nor waiting for a retry, as many as free slots allow;
    /// they are marked active here so that the next look does not start them twice.
    private func startable(accountId: String) -> [PhotoFileStore.Missing] {
        let limit = max(1, configuration.concurrency)
        let (busy, waiting) = state.withLock { ($0.active.count, $0.retries.count) }
        guard busy < limit || waiting > 0 else { return [] }
        let missing: [PhotoFileStore.Missing]
        do {
            missing = try store.read { [variant = configuration.variant] db in
                try PhotoFileStore.missing(db, accountId: accountId, variant: variant, limit: limit + busy + waiting)
            }
        } catch {
            logger.error("cannot read the library: \(error)", metadata: ["splashd_op": "images"])
            return []
        }
        let now = ContinuousClock.now
        let complete = missing.count < limit + busy + waiting
        return state.withLock { state in
            if complete {
                // A photo unliked (or recorded) meanwhile no longer waits for anything.
                let ids = Set(missing.map(\.photoId))
                state.retries = state.retries.filter { ids.contains($0.key) }
            }
            var chosen: [PhotoFileStore.Missing] = []
            for job in missing where state.active.count < limit && state.active[job.photoId] == nil {
                if let retry = state.retries[job.photoId], retry.due > now { continue }
                state.active[job.photoId] = (0, nil)
                chosen.append(job)
            }
            return chosen
        }
    }

    /// Fetches one photo's library file now, outside the queue's order: an edit is waiting for its
    /// original. If the queue is already fetching it, waits for that transfer instead of starting a
    /// second one into the same file.
    public func fetchNow(photoId: String) async throws(ImageFailure) {
        let job: PhotoFileStore.Missing?
        do {
            job = try store.read { db in try PhotoFileStore.job(db, photoId: photoId) }
        } catch {
            throw ImageFailure(message: "cannot read the library: \(error)", transient: true)
        }
        guard let job else { throw ImageFailure(message: "no photo \(photoId) in the store", transient: false) }
        while state.withLock({ $0.active[photoId] != nil }) {
            do {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                throw ImageFailure(message: "cancelled", transient: true)
            }
        }
        let alreadyThere = (try? store.read { [variant = configuration.variant] db in
            try PhotoFileStore.files(db, photoId: photoId).contains { $0.variant == variant }
        }) ?? false
        if alreadyThere { return }
        let claimed = state.withLock { state -> Bool in
            guard state.active[photoId] == nil else { return false }
            state.active[photoId] = (0, nil)
            return true
        }
        // Lost a race with the queue's own start: wait for that one.
        guard claimed else { return try await fetchNow(photoId: photoId) }
        await fetch(job)
        wakeup.ring()
        if let retry = state.withLock({ $0.retries[photoId] }) {
            throw ImageFailure(message: retry.lastError, status: retry.status, transient: true)
        }
    }

    /// Thumbnail jobs for the slots the library left free. A thumbnail that fails is dropped, not
    /// retried: the next refresh of its feed asks again.
    private func startableThumbnails() -> [PhotoFileStore.Missing] {
        let limit = max(1, configuration.concurrency)
        let candidates = state.withLock { state -> [String] in
            let free = limit - state.active.count
            return free > 0 ? Array(state.thumbnails.prefix(free * 4)) : []
        }
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
            var chosen: [PhotoFileStore.Missing] = []
            for (id, job) in jobs {
                guard let job, state.active.count < limit else {
                    if job == nil { state.thumbnails.removeAll { $0 == id } }
                    continue
                }
                let key = "thumb:" + id
                guard state.active[key] == nil else { continue }
                state.active[key] = (0, nil)
                state.thumbnails.removeAll { $0 == id }
                chosen.append(job)
            }
            return chosen
        }
    }

    private func fetchThumbnail(_ job: PhotoFileStore.Missing) async {
        defer { state.withLock { _ = $0.active.removeValue(forKey: "thumb:" + job.photoId) } }
        do throws(ImageFailure) {
            _ = try await download(job, variant: "thumb", inLibrary: false)
            cache.evict(maxBytes: configuration.cacheMaxBytes)
        } catch {
            logger.debug("thumbnail not fetched: \(error.message)", metadata: ["splashd_op": "images", "splashd_photo": "\(job.photoId)"])
        }
    }

    private func fetch(_ job: PhotoFileStore.Missing) async {
        let started = ContinuousClock.now
        announce(job.photoId, .started)
        let outcome: Result<PhotoFileStore.File, ImageFailure>?
        do throws(ImageFailure) {
            outcome = .success(try await download(job))
        } catch {
            outcome = .failure(error)
        }
        if Task.isCancelled, case .failure = outcome {
            state.withLock { _ = $0.active.removeValue(forKey: job.photoId) }
            return
        }
        switch outcome {
        case .success(let file)?:
            state.withLock { state in
                state.active.removeValue(forKey: job.photoId)
                state.retries.removeValue(forKey: job.photoId)
                state.finished += 1
                state.bytes += file.bytes
            }
            logger.info("photo in the library", metadata: [
                "splashd_op": "images", "splashd_photo": "\(job.photoId)", "splashd_bytes": "\(file.bytes)",
                "splashd_duration_ms": "\(started.millisecondsElapsed)",
            ])
            announce(job.photoId, .finished)
            await trackDownload(job)
            await configuration.fileArrived?(job.photoId, configuration.dataDirectory + "/" + file.path)
        case .failure(let failure)?:
            let retry = state.withLock { state -> Retry in
                state.active.removeValue(forKey: job.photoId)
                let attempts = (state.retries[job.photoId]?.attempts ?? 0) + 1
                // A permanent failure waits the longest interval: a catalogue may still fix it, but hammering won't.
                let delay = configuration.backoff.delay(
                    afterFailures: failure.transient ? attempts : 64, retryAfter: failure.retryAfter.map { .seconds($0) })
                let retry = Retry(
                    attempts: attempts, lastError: failure.message, status: failure.status, due: .now + delay,
                    dueDate: Date().addingTimeInterval(delay.timeInterval))
                state.retries[job.photoId] = retry
                return retry
            }
            if failure.transient && failure.status == nil && failure.message.hasPrefix("network") { network.reportFailure(failure.message) }
            let log = failure.transient ? Logger.Level.warning : .error
            announce(job.photoId, .failed, error: failure.message)
            logger.log(level: log, "photo download failed (attempt \(retry.attempts)); retrying \(Self.relative(retry.dueDate)): \(failure.message)", metadata: [
                "splashd_op": "images", "splashd_photo": "\(job.photoId)", "splashd_http_status": "\(failure.status ?? 0)",
            ])
        case nil:
            break
        }
    }

    private func announce(_ photoId: String, _ change: ImagesProgress.Change, error: String? = nil) {
        let totals = progress
        changed(ImagesProgress(
            photo: photoId, change: change, error: error, downloading: totals.active, waiting: totals.failing,
            finished: totals.finished, bytes: totals.bytes))
    }

    /// Fetches one file into the library and records it. After a crash the pieces are picked up where they
    /// lie: a `.part` resumes, a staged or placed file that was complete is verified and recorded as is.
    private func download(
        _ job: PhotoFileStore.Missing, variant requested: String? = nil, inLibrary: Bool = true
    ) async throws(ImageFailure) -> PhotoFileStore.File {
        let variant = requested ?? configuration.variant
        guard let url = Self.url(job.urls, variant: variant) else {
            throw ImageFailure(message: "the photo has no \(variant) URL", transient: false)
        }
        let libraryPath = ImagePaths.library(source: job.source, remoteId: job.remoteId, variant: variant)
        // Thumbnails of feeds live in the cache, evictable; library files in the data directory.
        let relative = inLibrary ? libraryPath : ImageMover.cachePath(forLibrary: libraryPath)
        let final = (inLibrary ? configuration.dataDirectory : configuration.cacheDirectory) + "/" + relative
        // The finished body lands in `<final>.download` (its `.part` beside it) and is checked before it
        // takes the library name: the library never holds an HTML error page, even for an instant.
        let staged = final + ".download"
        try Self.makeDirectories(for: final)
        if !Self.exists(final) {
            if !Self.exists(staged) {
                let photoId = job.photoId
                do {
                    let key = inLibrary ? photoId : "thumb:" + photoId
                    _ = try await http.download(
                        HTTPRequest(url: url, followRedirects: true), to: staged, maxBytes: configuration.maxFileBytes
                    ) { bytes, total in
                        self.state.withLock { $0.active[key] = (bytes, total) }
                    }
                } catch {
                    // An empty .part (a refused or redirected request) is no progress worth keeping.
                    if Self.size(staged + ".part") == 0 { unlink(staged + ".part") }
                    guard let failure = ImageFailure(error) else { throw ImageFailure(message: "cancelled", transient: true) }
                    throw failure
                }
            }
            do throws(ImageFailure) {
                try Self.checkJPEG(staged)
            } catch {
                unlink(staged)
                throw error
            }
            guard rename(staged, final) == 0 else {
                throw ImageFailure(message: "cannot move the file into the library: \(String(cString: strerror(errno)))", transient: true)
            }
            // The rename into the library must survive a power cut before the row that points at it does.
            DurableFile.syncDirectory(of: final)
            CrashPoint.downloadRenamed.reach()
        } else {
            // Placed by a run that died before recording it; keep it only if it is what we would have kept.
            do throws(ImageFailure) {
                try Self.checkJPEG(final)
            } catch {
                unlink(final)
                throw error
            }
        }
        let checksum: String
        do {
            checksum = try FileDigest.sha256Hex(path: final)
        } catch {
            throw ImageFailure(message: "cannot read back \(final): \(error)", transient: true)
        }
        let now = Date()
        let file = PhotoFileStore.File(
            photoId: job.photoId, variant: variant, path: relative, inLibrary: inLibrary, bytes: Self.size(final) ?? 0,
            checksum: checksum, createdAt: now, lastAccessAt: now)
        do {
            try store.write { db in try PhotoFileStore.record(db, file) }
        } catch {
            throw ImageFailure(message: "cannot record the file: \(error)", transient: true)
        }
        return file
    }

    /// Removes unfinished pieces (`.download.part`, `.download`, `.moving`) in the library that no missing
    /// photo will resume: left by a photo unliked or removed while the daemon was down mid-transfer.
    private func sweepStale(accountId: String) {
        let wanted: Set<String>
        let recorded: Set<String>
        do {
            (wanted, recorded) = try store.read { [variant = configuration.variant] db in
                (
                    Set(try PhotoFileStore.missing(db, accountId: accountId, variant: variant, limit: 1_000_000).map {
                        ImagePaths.library(source: $0.source, remoteId: $0.remoteId, variant: variant)
                    }),
                    // Edits' renderings too: each is recorded in photo_files (variant `edit:<id>`) in the
                    // transaction that records the edit.
                    try PhotoFileStore.libraryPaths(db)
                )
            }
        } catch {
            return
        }
        let root = configuration.dataDirectory + "/library"
        var removed = 0
        for source in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + source)) ?? [] {
                // An edit's rendering half-written by a run that died (saved here, or pulled): never recorded.
                if name.contains(".edit-"), name.hasSuffix(".part") || name.contains(".pulled-") {
                    if unlink(root + "/" + source + "/" + name) == 0 { removed += 1 }
                    continue
                }
                // A file placed by a run that died between its rename and its row (an edit's rendering, a
                // download) that no row points at and no missing photo will claim (a photo unliked
                // meanwhile). Only files older than this process: one being saved right now is renamed
                // a moment before its row commits.
                let relative = "library/\(source)/\(name)"
                if name.hasSuffix(".jpg"), !recorded.contains(relative), !wanted.contains(relative),
                   Self.modified(root + "/" + source + "/" + name).map({ $0 < created }) ?? false {
                    if unlink(root + "/" + source + "/" + name) == 0 { removed += 1 }
                    continue
                }
                guard let suffix = [".download.part", ".download", ".moving"].first(where: { name.hasSuffix($0) }) else { continue }
                let final = "library/\(source)/" + name.dropLast(suffix.count)
                if !wanted.contains(final), unlink(root + "/" + source + "/" + name) == 0 { removed += 1 }
            }
        }
        if removed > 0 {
            logger.info("removed \(removed) unfinished or unrecorded files no longer wanted", metadata: ["splashd_op": "images"])
        }
    }

    /// Unsplash asks that a photo used in an app is counted once, through `links.download_location`.
    /// Called after the library row is written, so at most once per photo; a failure is logged, not retried.
    private func trackDownload(_ job: PhotoFileStore.Missing) async {
        guard job.source == "unsplash", let base = configuration.unsplashAPIURL, let key = configuration.unsplashAccessKey,
              !key.isEmpty else { return }
        let id = job.remoteId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? job.remoteId
        let url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/photos/\(id)/download"
        do {
            let response = try await http.send(HTTPRequest(url: url, headers: [("Authorization", "Client-ID \(key)")], timeout: .seconds(30)))
            if !(200..<300).contains(response.status) {
                logger.warning("Unsplash download tracking failed", metadata: [
                    "splashd_op": "images", "splashd_photo": "\(job.photoId)", "splashd_http_status": "\(response.status)",
                ])
            }
        } catch {
            logger.warning("Unsplash download tracking failed: \(error)", metadata: ["splashd_op": "images", "splashd_photo": "\(job.photoId)"])
        }
    }

    // MARK: - Helpers

    /// The URL for `variant` in a `photos.urls` object; sources that lack it (NASA has orig/large/medium/
    /// small/thumb) get the nearest rendition instead.
    static func url(_ json: String?, variant: String) -> String? {
        guard let json, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
        let fallbacks: [String: [String]] = [
            "regular": ["large", "full", "medium", "orig", "raw", "small"],
            "full": ["orig", "raw", "large", "regular"],
            "raw": ["orig", "full"],
            "small": ["medium", "regular", "thumb"],
            "thumb": ["small"],
        ]
        for key in [variant] + (fallbacks[variant] ?? []) {
            if let url = object[key] as? String, !url.isEmpty { return url }
        }
        return nil
    }

    /// A JPEG starts FF D8 FF and ends with its EOI marker FF D9; anything else (an HTML error page
    /// served with 200, a truncated header, an endless body cut off) is refused. The marker is looked for
    /// in the last 64 KiB, since some cameras append data after it.
    static func checkJPEG(_ path: String) throws(ImageFailure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ImageFailure(message: "cannot open \(path): \(String(cString: strerror(errno)))", transient: true) }
        defer { close(fd) }
        var prefix = [UInt8](repeating: 0, count: 16)
        let n = prefix.withUnsafeMutableBytes { read(fd, $0.baseAddress, 16) }
        let head = Array(prefix.prefix(max(0, n)))
        guard head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF else { throw .notAnImage(head) }
        let size = lseek(fd, 0, SEEK_END)
        let tailLength = Int(min(size, 64 << 10))
        var tail = [UInt8](repeating: 0, count: tailLength)
        let got = tail.withUnsafeMutableBytes { pread(fd, $0.baseAddress, tailLength, off_t(size) - off_t(tailLength)) }
        let hasEnd = got == tailLength && zip(tail, tail.dropFirst()).contains { $0 == 0xFF && $1 == 0xD9 }
        guard hasEnd else {
            throw ImageFailure(message: "the server sent a JPEG without its end (a cut-off or endless body)", transient: false)
        }
    }

    static func makeDirectories(for file: String) throws(ImageFailure) {
        let directory = (file as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ImageFailure(message: "cannot create \(directory): \(error.localizedDescription)", transient: true)
        }
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    static func size(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    static func modified(_ path: String) -> Date? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec) + TimeInterval(status.st_mtim.tv_nsec) / 1e9)
    }

    static func relative(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSinceNow.rounded(.up))
        return seconds <= 0 ? "now" : "in \(seconds) s"
    }
}
