import Foundation
import GRDB
import HTTP
import Logging
import Shared
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
        let library = try await LikedLibrary(photos: 1)
        let (devstack, store, photo) = (library.devstack, library.store, library.photos[0])
        // The transfer takes a second: the second look surely reads the store while it runs.
        try await devstack.faults(#"[{"path": "/cdn/*", "action": "delay", "delay_ms": 1000, "times": 1}]"#)

        let arrivals = Mutex<[String]>([])
        let arrived = AsyncStream<Void>.makeStream()
        let looks = Mutex(0)
        var configuration = library.configuration
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
        let images = try library.queue(configuration)
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
    /// grow with the square of its size. With one slot and thirteen liked photos, the files start one after
    /// the other, newest first, each once, from few reads; an unlike half-way rings, and the read it brings
    /// leaves the unliked photo out. (They start in order; they may arrive two at once, since a file's
    /// slot is the next one's while it lands, and the two can land in one batch.)
    @Test func aTransfersEndTakesTheNextFileFromTheLastRead() async throws {
        // The queue takes them newest first: the first of them is the last to start.
        let library = try await LikedLibrary(photos: 13)
        let (store, photos) = (library.store, library.photos)
        let unliked = photos[0]
        let reads = Mutex(0)
        let arrivals = Mutex<[String]>([])
        let starts = Mutex<[String]>([])
        let queue = Mutex<ImageQueue?>(nil)
        var configuration = library.configuration
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
        let images = try library.queue(configuration) { progress in
            if progress.change == .started { starts.withLock { $0.append(progress.photo) } }
        }
        queue.withLock { $0 = images }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await images.run() }
            let landed = await eventually(within: .seconds(30), every: .milliseconds(50)) { arrivals.withLock { $0.count } >= 12 }
            #expect(landed, "only \(arrivals.withLock { $0.count }) of 12 files arrived")
            // Whatever else the queue would start, it starts now; give it time to show.
            try await Task.sleep(for: .milliseconds(500))
            group.cancelAll()
        }
        let arrived = arrivals.withLock { $0 }, started = starts.withLock { $0 }
        #expect(started == photos.dropFirst().reversed().map(\.id), "started: \(started)")
        #expect(arrived.count == 12 && Set(arrived) == Set(started), "arrived: \(arrived)")
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
        let library = try await LikedLibrary(photos: 2)
        let (store, photos) = (library.store, library.photos)
        let release = DispatchSemaphore(value: 0)
        let held = Mutex(0)
        var configuration = library.configuration
        configuration.concurrency = 1
        configuration.batchLanding = { _ in
            // The first batch waits (at most 20 s: a queue that keeps the slot would never let go).
            guard held.withLock({ $0 += 1; return $0 }) == 1 else { return }
            _ = release.wait(timeout: .now() + 20)
        }
        let images = try library.queue(configuration)
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

    /// What each test starts from: devstack reset; a store, in a directory of its own, holding the first
    /// `count` of devstack's Unsplash photos, liked by "ana" a second apart in their order (the queue takes
    /// the newest first); and a queue configuration writing into that directory.
    private struct LikedLibrary {
        let devstack: Devstack
        let directory = TemporaryDirectory()
        let store: Store
        let photos: [PhotoRecord]
        let configuration: ImageQueue.Configuration

        init(photos count: Int) async throws {
            devstack = try Devstack.require()
            try await devstack.reset()
            store = try Store(path: directory.file("splashd.sqlite"))
            configuration = ImageQueue.Configuration(dataDirectory: directory.file("data"), cacheDirectory: directory.file("cache"))
            let photos = try await devstack.unsplashPhotos(count).map { object in
                let urls = object["urls"] as? [String: String] ?? [:]
                let urlsJSON = String(decoding: try JSONSerialization.data(withJSONObject: urls, options: [.sortedKeys]), as: UTF8.self)
                return PhotoRecord(source: .unsplash, remoteId: object["id"] as? String ?? "", title: nil, authorName: "Ana",
                                   width: 4000, height: 3000, color: nil, urls: urlsJSON, fetchedAt: Date())
            }
            try #require(photos.count == count)
            let start = Date()
            try store.write { db in
                for (index, photo) in photos.enumerated() {
                    try photo.save(db)
                    try LikeRecord(accountId: "ana", photoId: photo.id, likedAt: start.addingTimeInterval(Double(index)), updatedAt: start)
                        .save(db)
                }
            }
            self.photos = photos
        }

        /// The queue over this library, with `configuration` (this library's, changed by the test).
        func queue(_ configuration: ImageQueue.Configuration, changed: @escaping @Sendable (ImagesProgress) -> Void = { _ in }) throws -> ImageQueue {
            ImageQueue(
                store: store, http: try HTTPClient(configuration: .init(version: "test")), configuration: configuration,
                accountId: { "ana" }, logger: Logger(label: "test"), changed: changed)
        }
    }
}
