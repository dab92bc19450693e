import Foundation
import Editing
import Library
import Logging
import ServiceLifecycle
import Shared
import Store
import Synchronization

/// Takes the perceptual hash of each file that arrives in the library and reports the library photos
/// it looks like. A like made before its photo's hash was known waits for this comparison before it
/// is sent (`LikeCheckRows`): a near-duplicate holds it in the `duplicate` state for the person to
/// decide (NicePhotoApp refused such photos), anything else releases it. Those arrivals are hashed at
/// once, downloads or not: a like waits on them.
///
/// Off the downloads' path, in batches: arrivals wait in a list while the scanner works, and each batch
/// reads the library's hashes once. Done per file inside the transfer, the comparison read every
/// library photo's hash under the store's write lock once per arrival: a pull of 1,000 files into a
/// library of 5,000 took five times as long as into an empty one.
public final class DuplicateScanner<C: Clock<Duration>>: Service, Sendable {
    public typealias Hasher = @Sendable (_ path: String) async -> PerceptualHash?

    private let store: Store
    private let dataDirectory: String
    private let threshold: Int
    private let hash: Hasher
    private let accountId: @Sendable () -> String
    private let logger: Logger
    /// Hashing waits while files download, up to a patience.
    private let transfers: TransferPatience<C>
    /// Hashing waits while it holds background work (the battery, power saver); likes waiting for a
    /// comparison do not (a person's like never waits on it).
    private let background: BackgroundGate
    /// How long after the start it looks for files left unhashed: its query reads the library's files,
    /// and the start (to READY) should not share the store and the cores with it.
    private let settleFor: Duration
    private let waiting = Mutex<[Arrival]>([])
    private let wakeup = Wakeup()
    /// Likes were held or released by a comparison: the outbox's counts changed, and the push engine
    /// may send the released ones.
    private let likesSettled: @Sendable () -> Void

    typealias Arrival = (photoId: String, path: String, report: Bool)

    /// `hash` takes a file's perceptual hash (nil: not an image it can read). `transfersActive` says
    /// whether files are downloading: hashing decodes whole images, and waits for the downloads
    /// (`transfersMayHaveEnded()` wakes it) so that it never slows them, up to `patience`. `clock` counts
    /// the patience and the settling.
    public init(
        store: Store, dataDirectory: String, threshold: Int, hash: @escaping Hasher, accountId: @escaping @Sendable () -> String,
        transfersActive: @escaping @Sendable () -> Bool = { false }, patience: Duration = .seconds(30),
        settleFor: Duration = .seconds(10), background: BackgroundGate = BackgroundGate(), likesSettled: @escaping @Sendable () -> Void = {},
        clock: C = ContinuousClock(), logger: Logger
    ) {
        self.likesSettled = likesSettled
        self.background = background
        transfers = TransferPatience(transfersActive: transfersActive, patience: patience, clock: clock)
        self.settleFor = settleFor
        self.store = store
        self.dataDirectory = dataDirectory
        self.threshold = threshold
        self.hash = hash
        self.accountId = accountId
        self.logger = logger
    }

    /// A library file was recorded at `path` (absolute).
    /// A file of the photo arrived; `report`: log it when it looks like a library photo (a library
    /// file), or only record its hash (a search result's thumbnail).
    public func arrived(photoId: String, path: String, report: Bool = true) {
        waiting.withLock { $0.append((photoId, path, report)) }
        wakeup.ring()
    }

    /// The photo's file could not be had: likes waiting to compare it are sent without the comparison.
    public func cannotCompare(photoId: String) {
        do {
            try settleLikes([photoId], near: [:])
        } catch {
            logger.error("cannot release the likes waiting for \(photoId): \(error)", metadata: ["splashd_op": "images"])
        }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            let clock = self.transfers.clock
            let settleAt = clock.now.advanced(by: self.settleFor)
            var settled = false
            var deadline: C.Instant? = settleAt
            while !Task.isCancelled {
                await self.wakeup.wait(until: deadline, clock: clock)
                if Task.isCancelled { return }
                if !settled && clock.now >= settleAt {
                    settled = true
                    self.queueUnhashed()
                }
                deadline = settled ? nil : settleAt
                if self.waiting.withLock({ $0.isEmpty }) { continue }
                if !self.background.allowsBackgroundWork {
                    await self.scanLikesWaiting()
                } else if let until = self.transfers.holdOffUntil() {
                    await self.scanLikesWaiting()
                    deadline = min(deadline ?? until, until)
                } else {
                    await self.scanWaiting()
                }
            }
        }
    }

    /// Files will not come for now (a metered network holds the downloads): every like waiting for its
    /// photo's comparison goes without it, as one whose file could not be had does.
    public func filesWillNotCome() {
        do {
            let photos = try store.read { db in try LikeCheckRows.photosWaiting(db) }
            try settleLikes(photos.sorted(), near: [:])
        } catch {
            logger.error("cannot release the likes waiting for a comparison: \(error)", metadata: ["splashd_op": "images"])
        }
    }

    /// The image queue's transfers may all have ended, or a hold on background work: waiting hashes may start.
    public func transfersMayHaveEnded() {
        wakeup.ring()
    }

    /// Library files that arrived while no scanner ran to the end (a stop, a crash) wait with the
    /// arrivals, once at the start. One that cannot be hashed stays unhashed and is tried again then.
    func queueUnhashed() {
        do {
            let files = try store.read { db in try PhotoFileStore.unhashed(db) }
            guard !files.isEmpty else { return }
            waiting.withLock { waiting in
                for file in files { waiting.append((file.photoId, dataDirectory + "/" + file.path, true)) }
            }
            wakeup.ring()
        } catch {
            logger.error("cannot read the library's files: \(error)", metadata: ["splashd_op": "images"])
        }
    }

    /// Hashes what has arrived, a batch at a time, records the hashes and reports near-duplicates;
    /// returns how many it hashed. Arrivals during a batch wait for the next.
    @discardableResult
    func scanWaiting(batchSize: Int = 100) async -> Int {
        var total = 0
        while !Task.isCancelled {
            let batch = waiting.withLock { waiting in
                defer { waiting.removeFirst(min(batchSize, waiting.count)) }
                return Array(waiting.prefix(batchSize))
            }
            if batch.isEmpty { break }
            let (hashed, unhashed) = await hashAndReport(batch[...], whileNotHeldOff: true)
            total += hashed
            if !unhashed.isEmpty {
                // Downloads began: the rest waits for them, first in line.
                waiting.withLock { $0.insert(contentsOf: unhashed, at: 0) }
                wakeup.ring()
                break
            }
        }
        return total
    }

    /// The arrivals whose photo has a like waiting for its comparison, hashed now, beside downloads.
    /// Asked at every arrival while downloads hold the rest off: the store is asked for the few photos
    /// likes wait on, not about every arrival waiting (those were thousands during a pull, and asking
    /// about all of them at each arrival made a pull's time grow with its square).
    func scanLikesWaiting() async {
        guard !waiting.withLock({ $0.isEmpty }) else { return }
        let checked: Set<String>
        do {
            checked = try store.read { db in try LikeCheckRows.photosWaiting(db) }
        } catch {
            logger.error("cannot read the likes waiting for a comparison: \(error)", metadata: ["splashd_op": "images"])
            return
        }
        guard !checked.isEmpty else { return }
        let picked = waiting.withLock { waiting in
            defer { waiting.removeAll { checked.contains($0.photoId) } }
            return waiting.filter { checked.contains($0.photoId) }
        }
        guard !picked.isEmpty else { return }
        _ = await hashAndReport(picked[...], whileNotHeldOff: false)
    }

    /// Hashes `arrivals` (stopping when downloads begin, if asked), records and reports what it hashed
    /// and settles the likes waiting on them; returns how many it hashed and the arrivals it did not reach.
    private func hashAndReport(
        _ arrivals: ArraySlice<Arrival>, whileNotHeldOff: Bool
    ) async -> (hashed: Int, unreached: ArraySlice<Arrival>) {
        var hashes: [(photoId: String, hash: PerceptualHash)] = []
        var reported: Set<String> = []
        var unreadable: [String] = []
        var unhashed = arrivals
        while let arrival = unhashed.first, !whileNotHeldOff || transfers.holdOffUntil() == nil {
            unhashed = unhashed.dropFirst()
            if let hash = await hash(arrival.path) {
                hashes.append((arrival.photoId, hash))
                if arrival.report { reported.insert(arrival.photoId) }
            } else {
                unreadable.append(arrival.photoId)
            }
        }
        report(hashes, logging: reported, unreadable: unreadable)
        return (hashes.count, unhashed)
    }

    /// `unreadable`: photos whose file could not be hashed; a like waiting on one goes without the check.
    private func report(_ hashes: [(photoId: String, hash: PerceptualHash)], logging reported: Set<String>, unreadable: [String] = []) {
        do {
            let near = try DuplicateFinder.record(hashes, accountId: accountId(), threshold: threshold, store: store)
            try settleLikes(hashes.map(\.photoId) + unreadable, near: near)
            for (photoId, photos) in near.sorted(by: { $0.key < $1.key }) where reported.contains(photoId) {
                guard let nearest = photos.first else { continue }
                logger.notice("\(photoId) looks like \(nearest.id), already in the library (\(nearest.distance) bits apart)", metadata: [
                    "splashd_op": "images", "splashd_photo": "\(photoId)", "splashd_duplicate_of": "\(nearest.id)",
                ])
            }
        } catch {
            logger.error("cannot record perceptual hashes: \(error)", metadata: ["splashd_op": "images"])
        }
    }

    /// Holds the waiting likes of photos near a library photo, releases the others.
    private func settleLikes(_ photoIds: [String], near: [String: [(id: String, distance: Int)]]) throws {
        guard !photoIds.isEmpty else { return }
        let settled = try store.write { db -> Int in
            var settled = 0
            for photoId in try LikeCheckRows.waiting(db, photoIds: photoIds) {
                let twin = near[photoId]?.first.map { LikeCheckRows.Hold(twinId: $0.id, distance: $0.distance) }
                try LikeCheckRows.settle(db, photoId: photoId, twin: twin, now: Date())
                settled += 1
                if let twin {
                    logger.notice("the like of \(photoId) waits: it looks like \(twin.twinId), already in the library", metadata: [
                        "splashd_op": "images", "splashd_photo": "\(photoId)", "splashd_duplicate_of": "\(twin.twinId)",
                    ])
                }
            }
            return settled
        }
        if settled > 0 { likesSettled() }
    }
}
