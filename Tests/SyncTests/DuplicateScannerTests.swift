import Clocks
import Editing
import Foundation
import GRDB
import Library
import Logging
import Shared
import Store
@testable import Sync
import Synchronization
import Testing
import TestSupport

/// The duplicate scanner's bookkeeping over a real store, with the perceptual hash given per path (the
/// hash itself is libvips', tested in EditingTests and end to end in ImportTests).
@Suite struct DuplicateScannerTests {
    let dir = TemporaryDirectory()
    let store: Store

    /// Photos a…e, liked by "u"; a and b have library files already hashed.
    init() throws {
        store = try Store(path: dir.file("s.sqlite"))
        try store.write { db in
            for (n, id) in ["a", "b", "c", "d", "e"].enumerated() {
                try PhotoRecord(source: .unsplash, remoteId: id, fetchedAt: Date()).insert(db)
                try LikeRecord(accountId: "u", photoId: "unsplash:" + id, likedAt: Date(timeIntervalSince1970: Double(n)), updatedAt: Date()).insert(db)
                try PhotoFileStore.record(db, PhotoFileStore.File(
                    photoId: "unsplash:" + id, variant: "regular", path: "library/unsplash/\(id).regular.jpg", inLibrary: true, bytes: 1,
                    checksum: nil, createdAt: Date(), lastAccessAt: Date()))
            }
            try PerceptualHashQuery.set(db, hash: 0b1111_0000, photoId: "unsplash:a")
            try PerceptualHashQuery.set(db, hash: UInt64.max, photoId: "unsplash:b")
        }
    }

    /// c is a's near twin (one bit apart), d is like nothing, e's file cannot be read.
    static let hashes: [String: UInt64] = [
        "c": 0b1111_0001, "d": 0x00FF_00FF_00FF_0000,
        // f: a's near twin (two bits apart), g: like nothing in the library; liked by "v" below.
        "f": 0b1111_0011, "g": 0x0F0F_0F0F_0F0F_0F0F,
    ]

    /// f, g and h liked by "v" (whose library is a's and b's twins' owner too: a and b are liked by
    /// "v" as well), through LikeActions with a check: each like waits for its photo's file.
    func likeWithChecks(_ ids: [String], seconds: TimeInterval = 600, now: Date = Date()) throws -> [String: OutboxEntry] {
        try store.write { db in
            for id in ["a", "b"] { try LikeRecord(accountId: "v", photoId: "unsplash:" + id, likedAt: Date(), updatedAt: Date()).insert(db) }
            for id in ids {
                try PhotoRecord(source: .unsplash, remoteId: id, urls: #"{"regular":"https://cdn.example/\#(id).jpg"}"#, fetchedAt: Date()).insert(db)
            }
        }
        let likes = LikeActions(store: store)
        let check = LikeActions.ArrivalCheck(seconds: seconds) { urls in urls != nil }
        var ops: [String: OutboxEntry] = [:]
        for id in ids {
            #expect(try likes.like(photoId: "unsplash:" + id, accountId: "v", refuseDuplicatesWithin: 4, checkArrival: check, now: now) == .changed(queued: true))
            ops[id] = try store.read { db in try OutboxStore.pending(db, accountId: "v", entity: .like, entityId: "unsplash:" + id).first }
        }
        return ops
    }

    func due(at now: Date) throws -> [String] {
        try store.read { db in try OutboxStore.due(db, accountId: "v", entity: .like, now: now, limit: 100) }.map(\.entityId).sorted()
    }

    /// The files the scanner asked to hash, in order.
    final class Asked: Sendable {
        let ids = Mutex<[String]>([])
        var all: [String] { ids.withLock { $0 } }
    }

    final class Flag: Sendable {
        let value = Mutex(false)
        func set(_ on: Bool) { value.withLock { $0 = on } }
        var isOn: Bool { value.withLock { $0 } }
    }

    func scanner<C: Clock<Duration>>(
        hashed: Asked, downloading: Flag = Flag(), patience: Duration = .seconds(30), released: Counter = Counter(), clock: C = ContinuousClock(),
        background: BackgroundGate = BackgroundGate()
    ) -> DuplicateScanner<C> {
        DuplicateScanner(
            store: store, dataDirectory: dir.path, threshold: 4,
            hash: { path in
                let id = String(path.split(separator: "/").last!.split(separator: ".").first!)
                hashed.ids.withLock { $0.append(id) }
                return Self.hashes[id].map(PerceptualHash.init(value:))
            },
            accountId: { "u" }, transfersActive: { downloading.isOn }, patience: patience, settleFor: .zero, background: background,
            likesSettled: { released.add() }, clock: clock, logger: Logger(label: "test"))
    }

    final class Counter: Sendable {
        let value = Mutex(0)
        func add() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    func storedHashes() throws -> [String: UInt64] {
        try store.read { db in
            var found: [String: UInt64] = [:]
            for id in ["a", "b", "c", "d", "e"] { found[id] = try PerceptualHashQuery.hash(db, photoId: "unsplash:" + id) }
            return found
        }
    }

    @Test func arrivalsAreHashedInBatchesAndTheirNeighboursFound() async throws {
        let hashed = Asked()
        let scanner = scanner(hashed: hashed)
        for id in ["c", "d", "e"] { scanner.arrived(photoId: "unsplash:" + id, path: dir.path + "/library/unsplash/\(id).regular.jpg") }
        #expect(await scanner.scanWaiting(batchSize: 2) == 2)
        #expect(hashed.all == ["c", "d", "e"])
        #expect(try storedHashes() == ["a": 0b1111_0000, "b": UInt64.max, "c": 0b1111_0001, "d": 0x00FF_00FF_00FF_0000])
        let near = try DuplicateFinder.record([("unsplash:c", PerceptualHash(value: 0b1111_0001))], accountId: "u", threshold: 4, store: store)
        #expect(near["unsplash:c"]?.map(\.id) == ["unsplash:a"])
        #expect(await scanner.scanWaiting() == 0, "nothing left waiting")
    }

    /// Files recorded while no scanner finished (a stop, a crash) are hashed at the next start; one
    /// that cannot be hashed is tried again then, and nothing already hashed is hashed again.
    @Test func filesLeftUnhashedByAStopAreHashedAtTheStart() async throws {
        let hashed = Asked()
        let scanner = scanner(hashed: hashed)
        scanner.queueUnhashed()
        #expect(await scanner.scanWaiting() == 2)
        #expect(Set(hashed.all) == ["c", "d", "e"])
        #expect(try storedHashes()["c"] == 0b1111_0001 && storedHashes()["e"] == nil)
        let again = Asked()
        let next = self.scanner(hashed: again)
        next.queueUnhashed()
        _ = await next.scanWaiting()
        #expect(again.all == ["e"])
    }

    /// Hashing decodes whole images: it waits while files download, starts when they end, and waits no
    /// longer than its patience (a stalled transfer must not hold it off for good).
    @Test func hashingWaitsForTheDownloadsButNotForever() async throws {
        let hashed = Asked(), downloading = Flag(), clock = TestClock()
        downloading.set(true)
        let scanner = scanner(hashed: hashed, downloading: downloading, patience: .seconds(30), clock: clock)
        let running = Task { try await scanner.run() }
        defer { running.cancel() }
        // c, d and e were recorded unhashed: queued at the start, held while files download. The scanner
        // asleep on the test clock is held: the clock does not move unless the test moves it.
        #expect(await clock.hasSleeper(), "the scanner waits for the downloads")
        #expect(hashed.all.isEmpty)
        downloading.set(false)
        scanner.transfersMayHaveEnded()
        let all = await eventually(tries: 500, every: .milliseconds(20)) { hashed.all } until: { $0.count == 3 }
        #expect(Set(all) == ["c", "d", "e"])

        downloading.set(true)
        scanner.arrived(photoId: "unsplash:c", path: dir.path + "/library/unsplash/c.regular.jpg")
        #expect(await clock.hasSleeper())
        await clock.advance(by: .seconds(29))
        #expect(hashed.all.count == 3, "held for the whole patience")
        await clock.advance(by: .seconds(1))
        let later = await eventually(tries: 500, every: .milliseconds(20)) { hashed.all } until: { $0.count == 4 }
        #expect(later.count == 4, "hashed beside a transfer that never ends, after the patience")
    }

    /// On battery or power saver background hashing waits, however long, until the hold ends; a like
    /// waiting for its photo's comparison does not wait with it.
    @Test func hashingWaitsWhileBackgroundWorkIsHeldButALikeIsStillCompared() async throws {
        let hashed = Asked(), clock = TestClock(), gate = BackgroundGate()
        gate.update { $0.background = .onBattery }
        let now = Date()
        _ = try likeWithChecks(["f"], now: now)
        let scanner = scanner(hashed: hashed, clock: clock, background: gate)
        let running = Task { try await scanner.run() }
        defer { running.cancel() }
        scanner.arrived(photoId: "unsplash:c", path: dir.path + "/library/unsplash/c.regular.jpg")
        scanner.arrived(photoId: "unsplash:f", path: dir.path + "/library/unsplash/f.regular.jpg")
        let liked = await eventually(tries: 500, every: .milliseconds(10)) { hashed.all } until: { $0.contains("f") }
        #expect(liked.contains("f"), "the like's photo is compared on battery")
        await clock.advance(by: .seconds(3600))
        try await Task.sleep(for: .milliseconds(200))
        #expect(!hashed.all.contains("c") && !hashed.all.contains("d"), "background hashing waits, patience or not")

        gate.update { $0.background = nil }
        scanner.transfersMayHaveEnded()
        let all = await eventually(tries: 500, every: .milliseconds(10)) { hashed.all } until: { $0.contains("c") }
        #expect(all.contains("c"), "hashed once the hold ended")
    }

    /// A like of a photo whose file has not been compared with the library waits for
    /// it; a near-duplicate is then held in the `duplicate` state (not sent, counted apart, listed with
    /// its twin) until the person keeps it (`queue retry`) or undoes it (`unlike`); any other photo is
    /// released at once, and a file that cannot be hashed or downloaded holds nothing.
    @Test func aLikeWaitsForItsFileAndANearDuplicateIsHeldUntilThePersonDecides() async throws {
        let now = Date()
        let ops = try likeWithChecks(["f", "g", "h", "i"], now: now)
        #expect(try due(at: now).isEmpty, "every like waits for its file")
        try store.write { db in _ = try OutboxStore.clearBackoff(db, accountId: "v") }
        #expect(try due(at: now).isEmpty, "sync.now and the backend's return clear backoffs, not these waits")
        #expect(try due(at: now.addingTimeInterval(601)) == ["unsplash:f", "unsplash:g", "unsplash:h", "unsplash:i"], "at most the check's time")

        let hashed = Asked(), released = Counter()
        let scanner = scanner(hashed: hashed, released: released)
        for id in ["f", "g", "h"] { scanner.arrived(photoId: "unsplash:" + id, path: dir.path + "/library/unsplash/\(id).regular.jpg") }
        _ = await scanner.scanWaiting()
        scanner.cannotCompare(photoId: "unsplash:i")
        #expect(released.count == 2, "told once a batch: f, g and h compared, then i's failed download: \(released.count)")
        // g is like nothing and h could not be hashed: both go now; f looks like a and is held.
        #expect(try due(at: now) == ["unsplash:g", "unsplash:h", "unsplash:i"])
        #expect(try due(at: now.addingTimeInterval(3600)) == ["unsplash:g", "unsplash:h", "unsplash:i"], "held is held for good")

        let queue = OutboxQueue(store: store)
        let listed = try #require(try queue.list(rejectedOnly: false).first { $0.entityId == "unsplash:f" })
        #expect(listed.state == "duplicate" && listed.duplicateOf == "unsplash:a" && listed.distance == 2, "\(listed)")
        let left = try store.read { db in try OutboxStore.left(db, accountId: "v") }
        #expect(left.held == 1 && left.pending == 3, "\(left)")
        #expect(try store.read { db in try CountsQuery.outbox(db, accountId: "v") }.duplicates == 1)

        // Kept: it goes now. Undone instead (a fresh like of another twin): the unlike replaces it.
        try queue.retry(opId: try #require(ops["f"]).opId)
        #expect(try due(at: now).contains("unsplash:f"))
        #expect(try store.read { db in try LikeCheckRows.holds(db) }.isEmpty)
    }

    @Test func anUnlikeOfAHeldLikeReplacesItAndEndsTheHold() async throws {
        let now = Date()
        _ = try likeWithChecks(["f"], now: now)
        let scanner = scanner(hashed: Asked())
        scanner.arrived(photoId: "unsplash:f", path: dir.path + "/library/unsplash/f.regular.jpg")
        _ = await scanner.scanWaiting()
        #expect(try store.read { db in try LikeCheckRows.holds(db) }.count == 1)
        _ = try LikeActions(store: store).unlike(photoId: "unsplash:f", accountId: "v", now: now)
        #expect(try store.read { db in try LikeCheckRows.holds(db) }.isEmpty, "the hold went with its op")
        let op = try #require(try store.read { db in try OutboxStore.due(db, accountId: "v", entity: .like, now: now, limit: 10) }.first)
        #expect(op.op == .unlike)
    }

    /// A like waiting on a file is hashed at once, though downloads run (hashing otherwise waits for them).
    @Test func aFileALikeWaitsOnIsHashedBesideDownloads() async throws {
        _ = try likeWithChecks(["g"])
        let hashed = Asked(), downloading = Flag(), released = Counter()
        downloading.set(true)
        let scanner = scanner(hashed: hashed, downloading: downloading, patience: .seconds(3600), released: released)
        let running = Task { try await scanner.run() }
        defer { running.cancel() }
        scanner.arrived(photoId: "unsplash:d", path: dir.path + "/library/unsplash/d.regular.jpg")
        scanner.arrived(photoId: "unsplash:g", path: dir.path + "/library/unsplash/g.regular.jpg")
        _ = await eventually(tries: 500, every: .milliseconds(20)) { released.count } until: { $0 == 1 }
        #expect(hashed.all.contains("g") && !hashed.all.contains("d"), "only the file a like waits on: \(hashed.all)")
    }
}
