import Foundation
import GRDB
import HTTP
import Logging
import Store
import Synchronization
import Sync
import Testing
import TestSupport

/// The image queue itself, against devstack's /cdn, with the queue held at its named seam instead of
/// hoping a busy machine lines the steps up.
@Suite(.serialized, .devstack) struct ImageQueueTests {
    /// Seen once in a fresh-clone run (ImagesTests: one photo's Unsplash download counted twice): a look
    /// read the store while a transfer was running, the transfer recorded its file and left `active`,
    /// and the look then started it again. Here the second look is held after its read until the
    /// transfer has ended; the photo must arrive once.
    @Test func aTransferThatEndsWhileTheQueueReadsTheStoreIsNotStartedAgain() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file("splashd.sqlite"))
        let photo = try #require(try await Self.likedCatalogue(1, devstack: devstack, store: store).first)
        // The transfer takes a second: the second look surely reads the store while it runs.
        try await devstack.faults(#"[{"path": "/cdn/*", "action": "delay", "delay_ms": 1000, "times": 1}]"#)

        let arrivals = Mutex<[String]>([])
        let arrived = AsyncStream<Void>.makeStream()
        let looks = Mutex(0)
        var configuration = ImageQueue.Configuration(dataDirectory: directory.file("data"), cacheDirectory: directory.file("cache"))
        configuration.fileArrived = { id, _ in
            arrivals.withLock { $0.append(id) }
            arrived.continuation.yield()
        }
        let queue = Mutex<ImageQueue?>(nil)
        configuration.listedMissing = { listed in
            let look = looks.withLock { $0 += 1; return $0 }
            guard listed.contains(photo.id) else { return }
            if look == 1 {
                // The first look starts the transfer; ring so that a second look follows at once.
                queue.withLock { $0 }?.ring()
            } else if look == 2 {
                // The second look read the store while the file was still missing: hold it until the
                // transfer has recorded the file and left.
                for await _ in arrived.stream { break }
            }
        }
        let images = ImageQueue(
            store: store, http: try HTTPClient(configuration: .init(version: "test")), configuration: configuration,
            accountId: { "ana" }, logger: Logger(label: "test"))
        queue.withLock { $0 = images }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await images.run() }
            let recorded = try await eventually(within: .seconds(20), every: .milliseconds(50)) {
                try store.read { db in try PhotoFileStore.files(db, photoId: photo.id).count } == 1 && looks.withLock { $0 } >= 2
            }
            #expect(recorded, "the file never arrived")
            // Whatever the held look would start, it starts now; give it time to land.
            images.ring()
            try await Task.sleep(for: .milliseconds(1500))
            group.cancelAll()
        }
        #expect(looks.withLock { $0 } >= 2, "the second look never came")
        #expect(arrivals.withLock { $0 } == [photo.id], "the photo arrived \(arrivals.withLock { $0.count }) times")
        try await devstack.clearFaults()
    }

    /// A transfer's end takes the next file from the queue's last read of what is missing: each read walks
    /// the account's likes past every one that has its file, and reading at every end made a pull's cost
    /// grow with the square of its size. With one slot and thirteen liked photos, the files arrive one after
    /// the other, each once, from few reads; an unlike half-way rings, and the read it brings leaves the
    /// unliked photo out.
    @Test func aTransfersEndTakesTheNextFileFromTheLastRead() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file("splashd.sqlite"))
        // The queue takes them newest first: the first of them is the last to start.
        let photos = try await Self.likedCatalogue(13, devstack: devstack, store: store)
        try #require(photos.count == 13)
        let unliked = photos[0]
        let reads = Mutex(0)
        let arrivals = Mutex<[String]>([])
        let queue = Mutex<ImageQueue?>(nil)
        var configuration = ImageQueue.Configuration(dataDirectory: directory.file("data"), cacheDirectory: directory.file("cache"))
        configuration.concurrency = 1
        configuration.readMissing = { reads.withLock { $0 += 1 } }
        configuration.fileArrived = { id, _ in
            let count = arrivals.withLock { $0.append(id); return $0.count }
            guard count == 3 else { return }
            // Half-way: the oldest like goes, and the queue is rung as a like change rings it.
            try? store.write { db in
                try db.execute(sql: "UPDATE likes SET deleted_at = ? WHERE photo_id = ?", arguments: [Date(), unliked.id])
            }
            queue.withLock { $0 }?.ring()
        }
        let images = ImageQueue(
            store: store, http: try HTTPClient(configuration: .init(version: "test")), configuration: configuration,
            accountId: { "ana" }, logger: Logger(label: "test"))
        queue.withLock { $0 = images }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await images.run() }
            let landed = await eventually(within: .seconds(30), every: .milliseconds(50)) { arrivals.withLock { $0.count } >= 12 }
            #expect(landed, "only \(arrivals.withLock { $0.count }) of 12 files arrived")
            // Whatever else the queue would start, it starts now; give it time to show.
            try await Task.sleep(for: .milliseconds(500))
            group.cancelAll()
        }
        let arrived = arrivals.withLock { $0 }
        #expect(arrived == photos.dropFirst().reversed().map(\.id), "arrived: \(arrived)")
        #expect(!arrived.contains(unliked.id))
        // The first read, the one the unlike's ring brought, and the looks that find the last read used up
        // as the last file lands: four or five when this was written, whatever the number of files.
        // Reading at every look that had a free slot, the queue read fifteen times for these twelve.
        #expect(reads.withLock { $0 } <= 8, "\(reads.withLock { $0 }) reads of the store for 12 files")
    }

    /// A transfer's slot is the next transfer's once its bytes are all here: the file's check, hash and
    /// landing (flushed a batch at a time, waiting for the disk) go on without it. With one slot, the
    /// first photo's landing is held at the committer's seam; the second photo's transfer must start
    /// meanwhile, and both land once it is let go.
    @Test func aFileBeingLandedLeavesItsSlotToTheNextTransfer() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file("splashd.sqlite"))
        let photos = try await Self.likedCatalogue(2, devstack: devstack, store: store)
        try #require(photos.count == 2)
        let release = DispatchSemaphore(value: 0)
        let held = Mutex(0)
        var configuration = ImageQueue.Configuration(dataDirectory: directory.file("data"), cacheDirectory: directory.file("cache"))
        configuration.concurrency = 1
        configuration.batchLanding = { _ in
            // The first batch waits (at most 20 s: a queue that keeps the slot would never let go).
            guard held.withLock({ $0 += 1; return $0 }) == 1 else { return }
            _ = release.wait(timeout: .now() + 20)
        }
        let images = ImageQueue(
            store: store, http: try HTTPClient(configuration: .init(version: "test")), configuration: configuration,
            accountId: { "ana" }, logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await images.run() }
            let firstHeld = await eventually(within: .seconds(20), every: .milliseconds(20)) { held.withLock { $0 } == 1 }
            #expect(firstHeld, "the first file never reached its landing")
            // Both photos are active now: one being landed, the other transferring in the freed slot.
            let secondStarted = await eventually(within: .seconds(10), every: .milliseconds(20)) {
                photos.allSatisfy { photo in
                    if case .downloading = images.state(of: photo.id) { true } else { false }
                }
            }
            #expect(secondStarted, "the second transfer waited for the first file's landing")
            release.signal()
            let landed = try await eventually(within: .seconds(20), every: .milliseconds(50)) {
                try store.read { db in try photos.allSatisfy { try PhotoFileStore.files(db, photoId: $0.id).count == 1 } }
            }
            #expect(landed, "the files never landed")
            group.cancelAll()
        }
    }

    /// The first `count` of devstack's Unsplash photos, saved in `store` and liked by "ana" a second apart,
    /// in their order (the queue takes the newest first).
    private static func likedCatalogue(_ count: Int, devstack: Devstack, store: Store) async throws -> [PhotoRecord] {
        let photos = try await devstack.unsplashPhotos(count).map { object in
            let urls = object["urls"] as? [String: String] ?? [:]
            let urlsJSON = String(decoding: try JSONSerialization.data(withJSONObject: urls, options: [.sortedKeys]), as: UTF8.self)
            return PhotoRecord(source: "unsplash", remoteId: object["id"] as? String ?? "", title: nil, authorName: "Ana",
                               width: 4000, height: 3000, color: nil, urls: urlsJSON, fetchedAt: Date())
        }
        let start = Date()
        try store.write { db in
            for (index, photo) in photos.enumerated() {
                try photo.save(db)
                try LikeRecord(accountId: "ana", photoId: photo.id, likedAt: start.addingTimeInterval(Double(index)), updatedAt: start)
                    .save(db)
            }
        }
        return photos
    }
}
