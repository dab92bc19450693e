#if canImport(Glibc)
import Glibc
#endif
import Connectivity
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
        /// The URL of a rendition in a `photos.urls` object. The photo sources know their own names
        /// (NASA's orig/large/medium, the nearest one when a source lacks the variant asked for); by
        /// itself the queue takes only the variant's own key.
        public var renditionURL: @Sendable (_ urls: String?, _ variant: String) -> String? = { urls, variant in
            guard let urls, let object = try? JSONSerialization.jsonObject(with: Data(urls.utf8)) as? [String: Any],
                  let url = object[variant] as? String, !url.isEmpty else { return nil }
            return url
        }

        /// Called with the photo id and the file's absolute path after a library file is recorded (the
        /// daemon counts an Unsplash download there, as Unsplash's terms ask, and takes the perceptual
        /// hash to report near-duplicates).
        public var fileArrived: (@Sendable (String, String) async -> Void)?
        /// Called with the photo id and the absolute path of a thumbnail put in the cache (the daemon
        /// takes its perceptual hash, so a like of a near-duplicate can be refused before any download).
        public var thumbnailArrived: (@Sendable (String, String) -> Void)?
        /// Called with the photo id when a library file's download failed (a like waiting to compare it
        /// goes without the comparison).
        public var fileFailed: (@Sendable (String) -> Void)?
        /// A test's seam: called with the photos one look found missing, before it picks which to start
        /// (a test holds it there while a transfer ends).
        public var listedMissing: (@Sendable ([String]) async -> Void)?
        /// A test's seam: called each time a look reads the store for what is missing (not when it takes
        /// the next file from the last read).
        public var readMissing: (@Sendable () -> Void)?
        /// A test's seam: called with each batch's size before the committer lands it (on its queue; a
        /// test holds a batch there).
        public var batchLanding: (@Sendable (Int) -> Void)?

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

    struct State {
        var scheduler: DownloadScheduler
        /// Those waiting for a transfer to end (`fetchNow`, `thumbnailNow`), by its key.
        var awaiting: [String: [CheckedContinuation<Void, Never>]] = [:]

        /// Ends the transfer `key`; the waiters to resume, once out of the lock.
        mutating func end(_ key: String) -> [CheckedContinuation<Void, Never>] {
            scheduler.end(key)
            return awaiting.removeValue(forKey: key) ?? []
        }
    }

    public let configuration: Configuration
    let store: Store
    private let http: HTTPClient
    private let downloader: ImageDownloader
    private let sweep: StaleFileSweep
    private let accountId: @Sendable () async -> String?
    private let network: NetworkGate
    /// Library files and prefetched thumbnails wait while it holds them (a metered network, the battery).
    private let background: BackgroundGate
    /// Each image host on its own: a host that does not answer waits; the others go on.
    let health: ServiceHealth
    let logger: Logger
    private let changed: @Sendable (ImagesProgress) -> Void
    /// Held while an event is counted and published (`announce`).
    private let publishing = Mutex(())
    let wakeup = Wakeup()
    let state: Mutex<State>

    public init(
        store: Store, http: HTTPClient, configuration: Configuration, accountId: @escaping @Sendable () async -> String?,
        network: NetworkGate = .alwaysOnline, background: BackgroundGate = BackgroundGate(), health: ServiceHealth = ServiceHealth(),
        logger: Logger, changed: @escaping @Sendable (ImagesProgress) -> Void = { _ in }
    ) {
        self.store = store
        self.http = http
        self.configuration = configuration
        self.accountId = accountId
        self.network = network
        self.background = background
        self.health = health
        self.logger = logger
        self.changed = changed
        state = Mutex(State(scheduler: DownloadScheduler(slots: configuration.concurrency, backoff: configuration.backoff)))
        downloader = ImageDownloader(
            http: http, dataDirectory: configuration.dataDirectory, cacheDirectory: configuration.cacheDirectory,
            maxFileBytes: configuration.maxFileBytes, committer: FileCommitter(store: store, batchLanding: configuration.batchLanding),
            renditionURL: configuration.renditionURL)
        // Made before the control socket listens: no edit of this process is older.
        sweep = StaleFileSweep(
            store: store, dataDirectory: configuration.dataDirectory, cacheDirectory: configuration.cacheDirectory,
            variant: configuration.variant, processStarted: Date(), logger: logger)
    }

    /// Likes changed, a pull finished, the network is back, a sign-in: look for missing files.
    public func ring() {
        likesMayHaveChanged.store(true, ordering: .releasing)
        listingStale.store(true, ordering: .releasing)
        wakeup.ring()
    }

    /// Set by `ring()`: what is missing may have changed, and the next look reads the store again.
    private let listingStale = Atomic(true)

    /// Set by `ring()`: the next look also moves files between the library and the cache. A finished
    /// transfer's wake-up does not set it: a download changes nothing about what belongs where, and the
    /// move's queries read every file the library holds (run after each of a pull's thousand
    /// transfers, they made its time grow with the library).
    private let likesMayHaveChanged = Atomic(true)

    var cache: ImageCache { ImageCache(store: store, cacheDirectory: configuration.cacheDirectory, logger: logger) }
    private var mover: ImageMover {
        ImageMover(store: store, dataDirectory: configuration.dataDirectory, cacheDirectory: configuration.cacheDirectory, logger: logger)
    }

    public func run() async throws {
        cache.evict(maxBytes: configuration.cacheMaxBytes)
        await cancelWhenGracefulShutdown { await self.loop() }
        http.shutdown()
    }

    public func state(of photoId: String) -> PhotoState? {
        state.withLock { $0.scheduler.state(of: photoId) }
    }

    public var progress: Progress {
        state.withLock { $0.scheduler.progress(announced: false) }
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
                        sweep.run(accountId: account)
                        swept = true
                    }
                    // Local moves need no network: unliked files become cache, re-liked ones library again.
                    if likesMayHaveChanged.exchange(false, ordering: .acquiringAndReleasing) {
                        let moved = mover.reconcile(accountId: account, variant: configuration.variant)
                        if moved.unpinned > 0 { cache.evict(maxBytes: configuration.cacheMaxBytes) }
                        // Each look moves at most a batch each way: until one moves nothing, look again.
                        if moved.unpinned + moved.repinned > 0 { ring() }
                    }
                }
                // No gate on the backend: each image host is asked on its own (`health`), so a CDN
                // that answers keeps downloading while the backend is down or absent.
                // What a person asks for now (`fetchNow`, `thumbnailNow`) does not wait with these.
                if background.allowsTransfers, let account = await accountId(), let listed = listMissing(accountId: account) {
                    await configuration.listedMissing?(listed.missing.map(\.photoId))
                    for job in startable(listed) {
                        group.addTask { await self.fetch(job) }
                    }
                }
                // Thumbnails (followed feeds', what searches showed) need no account: whoever is signed in.
                for job in background.allowsTransfers && background.allowsBackgroundWork ? startableThumbnails() : [] {
                    group.addTask {
                        await self.fetchThumbnail(job)
                        self.wakeup.ring()
                    }
                }
                let now = ContinuousClock.now
                deadline = state.withLock { $0.scheduler.nextRetry(after: now) }
                await wakeup.wait(until: deadline)
            }
        }
    }

    /// What the store says is missing, read when a slot is free or a retry waits (or the last read taken
    /// again, see `DownloadScheduler.look`); nil when nothing can start.
    private func listMissing(accountId: String) -> DownloadScheduler.Listing? {
        let now = ContinuousClock.now
        // Likes, sign-ins, pulls and the network coming back ring (`listingStale`); a transfer's end does not.
        let stale = listingStale.exchange(false, ordering: .acquiringAndReleasing)
        let wanted: Int, finishedBefore: Int
        switch state.withLock({ $0.scheduler.look(accountId: accountId, stale: stale, now: now) }) {
        case .nothing:
            // Nothing can start: the ring waits for the look that can.
            if stale { listingStale.store(true, ordering: .releasing) }
            return nil
        case .reuse(let listing):
            return listing
        case .read(let count, let finished):
            (wanted, finishedBefore) = (count, finished)
        }
        configuration.readMissing?()
        do {
            let missing = try store.read { [variant = configuration.variant] db in
                try PhotoFileStore.missing(db, accountId: accountId, variant: variant, limit: wanted)
            }
            let listing = DownloadScheduler.Listing(
                accountId: accountId, missing: missing, complete: missing.count < wanted, finishedBefore: finishedBefore)
            state.withLock { $0.scheduler.listed(listing) }
            return listing
        } catch {
            // The ring that asked for this read still stands: the last listing is not taken again.
            listingStale.store(true, ordering: .releasing)
            logger.error("cannot read the library: \(error)", metadata: ["splashd_op": "images"])
            return nil
        }
    }

    /// Missing files to start now (`DownloadScheduler.start`), active from here.
    private func startable(_ listing: DownloadScheduler.Listing) -> [PhotoFileStore.Missing] {
        let now = ContinuousClock.now
        return state.withLock { state in
            state.scheduler.start(from: listing, now: now) { usable($0, variant: configuration.variant) }
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
        if let host = host(of: job, variant: configuration.variant), let down = health.downReason(host) {
            throw ImageFailure(
                message: "\(host) does not answer (\(down.reason ?? "unreachable")); it is tried again \(down.retryAt.map(Self.relative) ?? "soon")",
                transient: true)
        }
        await untilEnded(photoId)
        let alreadyThere = (try? store.read { [variant = configuration.variant] db in
            try PhotoFileStore.files(db, photoId: photoId).contains { $0.variant == variant }
        }) ?? false
        if alreadyThere { return }
        let claimed = state.withLock { $0.scheduler.claim(photoId) }
        // Lost a race with the queue's own start: wait for that one.
        guard claimed else { return try await fetchNow(photoId: photoId) }
        await fetch(job)
        if case .waiting(_, let lastError, let status, _)? = state(of: photoId) {
            throw ImageFailure(message: lastError, status: status, transient: true)
        }
    }

    /// Returns once the transfer `key` (a photo id, or a thumbnail's key) is not in flight: at once when
    /// it is not, else when it ends (`State.end`).
    func untilEnded(_ key: String) async {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state -> Bool in
                guard state.scheduler.isActive(key) else { return true }
                state.awaiting[key, default: []].append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    func resume(_ waiters: [CheckedContinuation<Void, Never>]) {
        for waiter in waiters { waiter.resume() }
    }

    private func fetch(_ job: PhotoFileStore.Missing) async {
        let started = ContinuousClock.now
        announce(job.photoId, .started)
        let outcome: Result<PhotoFileStore.File, ImageFailure>?
        do throws(ImageFailure) {
            outcome = .success(try await download(job, downloaded: {
                self.state.withLock { $0.scheduler.landing(job.photoId) }
                self.wakeup.ring()
            }))
        } catch {
            outcome = .failure(error)
        }
        state.withLock { $0.scheduler.landed(job.photoId) }
        if Task.isCancelled, case .failure = outcome {
            resume(state.withLock { $0.end(job.photoId) })
            return
        }
        if let outcome, let host = host(of: job, variant: configuration.variant) { report(outcome.map { _ in () }, host: host) }
        switch outcome {
        case .success(let file)?:
            state.withLock { $0.scheduler.succeeded(job.photoId, bytes: file.bytes) }
            logger.info("photo in the library", metadata: [
                "splashd_op": "images", "splashd_photo": "\(job.photoId)", "splashd_bytes": "\(file.bytes)",
                "splashd_duration_ms": "\(started.millisecondsElapsed)",
            ])
            announce(job.photoId, .finished)
            resume(state.withLock { $0.end(job.photoId) })
            // The slot is free: the next look starts now, not after the Unsplash download count and the
            // perceptual hash below, which take their time on a busy machine.
            wakeup.ring()
            await configuration.fileArrived?(job.photoId, configuration.dataDirectory + "/" + file.path)
        case .failure(let failure)?:
            let now = ContinuousClock.now
            let retry = state.withLock { $0.scheduler.failed(job.photoId, failure, now: now, nowDate: Date()) }
            announce(job.photoId, .failed, error: failure.message)
            resume(state.withLock { $0.end(job.photoId) })
            wakeup.ring()
            if failure.network { network.reportFailure(failure.message) }
            let log = failure.transient ? Logger.Level.warning : .error
            configuration.fileFailed?(job.photoId)
            logger.log(level: log, "photo download failed (attempt \(retry.attempts)); retrying \(Self.relative(retry.dueDate)): \(failure.message)", metadata: [
                "splashd_op": "images", "splashd_photo": "\(job.photoId)", "splashd_http_status": "\(failure.status ?? 0)",
            ])
        case nil:
            break
        }
    }

    /// Counts and publishes under one lock: transfers ending together would otherwise publish in another
    /// order than they counted, and the last event could say a file still downloads when none does.
    private func announce(_ photoId: String, _ change: ImagesProgress.Change, error: String? = nil) {
        publishing.withLock { _ in
            let totals = state.withLock { $0.scheduler.progress(announced: true) }
            changed(ImagesProgress(
                photo: photoId, change: change, error: error, downloading: totals.active, waiting: totals.failing,
                finished: totals.finished, bytes: totals.bytes))
        }
    }

    /// One file into the library (or a thumbnail into the cache), its progress kept for `photos.show`.
    func download(
        _ job: PhotoFileStore.Missing, variant: String? = nil, inLibrary: Bool = true, downloaded: @Sendable () -> Void = {}
    ) async throws(ImageFailure) -> PhotoFileStore.File {
        let key = inLibrary ? job.photoId : "thumb:" + job.photoId
        return try await downloader.download(
            job, variant: variant ?? configuration.variant, inLibrary: inLibrary, downloaded: downloaded
        ) { bytes, total in
            self.state.withLock { $0.scheduler.progressed(key, bytes: bytes, total: total) }
        }
    }

    static func relative(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSinceNow.rounded(.up))
        return seconds <= 0 ? "now" : "in \(seconds) s"
    }
}
