#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP
import Shared
import SplashClient
import Store
import Support
import Testing
import TestSupport

/// Image transfers against devstack's /cdn: liked photos arrive in the library as complete, verified
/// files; faults end in the same files; a kill -9 does not fetch finished files again.
@Suite(.serialized, .devstack) struct ImagesTests {
    @Test func likedPhotosArriveInTheLibraryAndShowInPhotosShow() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photos = try await daemon.seedCatalogue(count: 6)
            let liked = Array(photos.prefix(5))
            let watcher = try SplashClient.connect(socketPath: daemon.process.socketPath)
            _ = try await watcher.send(SubscribeRequest(types: [EventType.imagesChanged.rawValue]))
            for photo in liked { _ = try await daemon.client.send(PhotosLikeRequest(id: photo.id)) }
            let usage = try await daemon.waitForLibrary(files: 5)
            #expect(usage.libraryFiles == 5 && usage.cacheFiles == 0)

            // Progress: images.changed says started and finished for each file, with the queue's totals.
            let events = try await Self.imageEvents(watcher, until: { $0.filter { $0.change == .finished }.count >= 5 })
            await watcher.close()
            #expect(Set(events.filter { $0.change == .started }.map(\.photo)) == Set(liked.map(\.id)))
            #expect(Set(events.filter { $0.change == .finished }.map(\.photo)) == Set(liked.map(\.id)))
            #expect(events.last?.finished == 5 && events.last?.bytes == usage.libraryBytes)
            // The counters follow the files; the last one may land a moment after its event.
            let status = try await eventually { try await daemon.client.send(StatusRequest()) } until: { $0.library.files >= 5 }
            #expect(status.library.files == 5 && status.library.bytes == usage.libraryBytes)

            for photo in liked {
                let detail = try await daemon.client.send(PhotosShowRequest(id: photo.id))
                let file = try #require(detail.files.first)
                #expect(detail.files.count == 1 && file.location == .library && file.present && file.variant == "regular")
                #expect(file.path == daemon.directory + "/data/library/unsplash/\(photo.remoteId).regular.jpg")
                let expected = try await devstack.cdnBytes(photo.url)
                let onDisk = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file.path)))
                #expect(onDisk == expected, "\(photo.id): the file is the server's bytes")
                #expect(file.bytes == Int64(expected.count))
                #expect(file.checksum == (try FileDigest.sha256Hex(path: file.path)))
                #expect(detail.likedAt != nil && detail.download == nil)
            }
            let notLiked = try await daemon.client.send(PhotosShowRequest(id: photos[5].id))
            #expect(notLiked.files.isEmpty && notLiked.likedAt == nil)
            #expect(daemon.leftovers().isEmpty, "no .part or staged files: \(daemon.leftovers())")

            // Unsplash's download tracking: once per photo that entered the library, none for the others.
            let counters = try await devstack.counters()
            let tracking = counters["download_tracking"] as? [String: Int] ?? [:]
            #expect(tracking == Dictionary(uniqueKeysWithValues: liked.map { ($0.remoteId, 1) }))

            await #expect { try await daemon.client.send(PhotosShowRequest(id: "unsplash:nowhere")) } throws: { ($0 as? RPCError)?.kind == .notFound }
        }
    }

    /// Connection resets, bodies cut short and 503s on the way: every file ends complete and identical to
    /// the server's, and nothing but finished files is left in the library.
    @Test func faultsEndInCompleteVerifiedFiles() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photos = try await daemon.seedCatalogue(count: 8)
            try await devstack.faults("""
                [{"path": "/cdn/*", "action": "reset", "times": 2},
                 {"path": "/cdn/*", "action": "truncate", "truncate_bytes": 7000, "times": 4},
                 {"path": "/cdn/*", "status": 503, "retry_after": 1, "times": 3}]
                """)
            for photo in photos { _ = try await daemon.client.send(PhotosLikeRequest(id: photo.id)) }
            let usage = try await daemon.waitForLibrary(files: photos.count, timeout: .seconds(45))
            #expect(usage.libraryFiles == photos.count)
            let faults = try await devstack.counters()["faults_injected_total"] as? Int ?? 0
            #expect(faults == 9, "every fault was met: \(faults)")
            try await devstack.clearFaults()
            for photo in photos {
                let detail = try await daemon.client.send(PhotosShowRequest(id: photo.id))
                let file = try #require(detail.files.first)
                let onDisk = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file.path)))
                #expect(onDisk == (try await devstack.cdnBytes(photo.url)), "\(photo.id)")
            }
            #expect(daemon.leftovers().isEmpty, "\(daemon.leftovers())")
        }
    }

    /// An HTML page served as 200, a 404 and a redirect loop: clear errors in photos.show and the log
    /// (with the photo and HTTP status), no row, nothing in the library.
    @Test func badResponsesAreRefusedWithClearErrors() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photos = try await daemon.seedCatalogue(count: 3)
            let html = photos[0], missing = photos[1], loop = photos[2]
            let loopURL = devstack.controlURL + "/cdn/unsplash/photo-\(loop.remoteId)"
            try await devstack.faults("""
                [{"path": "/cdn/unsplash/photo-\(html.remoteId)", "status": 200, "content_type": "text/html",
                  "body": "<!DOCTYPE html><html><body>Service unavailable</body></html>"},
                 {"path": "/cdn/unsplash/photo-\(missing.remoteId)", "status": 404},
                 {"path": "/cdn/unsplash/photo-\(loop.remoteId)", "status": 302, "headers": {"Location": "\(loopURL)"}}]
                """)
            for photo in photos { _ = try await daemon.client.send(PhotosLikeRequest(id: photo.id)) }
            let details = try await daemon.waitForFailures(photos.map(\.id))
            #expect(details[html.id]?.lastError?.contains("not a JPEG") == true, "\(String(describing: details[html.id]))")
            #expect(details[missing.id]?.httpStatus == 404)
            #expect(details[loop.id]?.lastError?.contains("redirect") == true, "\(String(describing: details[loop.id]))")
            let usage = try await daemon.client.send(CacheStatusRequest())
            #expect(usage.libraryFiles == 0 && usage.waiting == 3)
            #expect(daemon.libraryFiles().isEmpty, "nothing in the library: \(daemon.libraryFiles())")
            let log = daemon.process.stderr
            #expect(log.contains("splashd_photo=\(missing.id)") && log.contains("splashd_http_status=404"))
            // Waiting for retries is sleeping: the daemon uses (almost) no CPU meanwhile.
            let ticks = Splashd.cpuTicks(daemon.process.pid)
            try await Task.sleep(for: .seconds(1))
            let used = Splashd.cpuTicks(daemon.process.pid) - ticks
            #expect(used < 10, "\(used) clock ticks of CPU in 1 s while only retries were pending")
            // Unliked, a failing photo no longer waits for anything.
            _ = try await daemon.client.send(PhotosUnlikeRequest(id: missing.id))
            let after = try await daemon.waitForUsage { $0.waiting == 2 }
            #expect(after.waiting == 2)
            #expect(try await daemon.client.send(PhotosShowRequest(id: missing.id)).download == nil)
            try await devstack.clearFaults()
        }
    }

    /// Finished files survive a kill -9 and are not fetched again; files cut off mid-body resume from
    /// their .part with Range.
    @Test func killNineResumesWithoutFetchingFinishedFilesAgain() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            var daemon = try await fixture.splashd(.sync())
            let directory = daemon.directory
            let photos = try await daemon.seedCatalogue(count: 8)
            let finished = Array(photos.prefix(4)), cut = Array(photos.suffix(4))
            for photo in finished { _ = try await daemon.client.send(PhotosLikeRequest(id: photo.id)) }
            _ = try await daemon.waitForLibrary(files: 4)

            // The next four stall after 64 KiB: their .part files hold exactly that when the daemon dies.
            let head = 65_536
            try await devstack.faults("""
                [{"path": "/cdn/*", "action": "stall", "truncate_bytes": \(head), "stall_seconds": 120}]
                """)
            for photo in cut { _ = try await daemon.client.send(PhotosLikeRequest(id: photo.id)) }
            let parts = cut.map { directory + "/data/library/unsplash/\($0.remoteId).regular.jpg.download.part" }
            let partSizes = await eventually(tries: 400, every: .milliseconds(50)) {
                parts.map(Splashd.size)
            } until: { $0.allSatisfy { $0 == Int64(head) } }
            #expect(partSizes.allSatisfy { $0 == Int64(head) }, "\(partSizes)")
            await daemon.kill9()
            try await devstack.clearFaults()

            // A piece of a photo nobody wants any more (unliked while splashd was down) is swept at the start.
            let stray = directory + "/data/library/unsplash/gone.regular.jpg.download.part"
            _ = FileManager.default.createFile(atPath: stray, contents: Data(repeating: 0xFF, count: 1000))
            // And the cache's pieces, which nothing resumes (a power cut can bring back any of them).
            let cacheFolder = directory + "/cache/images/unsplash"
            try FileManager.default.createDirectory(atPath: cacheFolder, withIntermediateDirectories: true)
            let cachePieces = ["a.thumb.jpg.download.part", "b.thumb.jpg.download", "c.regular.jpg.moving"].map { cacheFolder + "/" + $0 }
            for piece in cachePieces { _ = FileManager.default.createFile(atPath: piece, contents: Data(repeating: 0xFF, count: 100)) }
            let before = try await devstack.counters()
            daemon = try await fixture.splashd(.sync(directory: directory, email: daemon.account))
            _ = try await daemon.waitForLibrary(files: 8)
            let after = try await devstack.counters()
            let requestsBefore = before["requests_by_path"] as? [String: Int] ?? [:]
            let requestsAfter = after["requests_by_path"] as? [String: Int] ?? [:]
            for photo in finished {
                let key = "GET /cdn/unsplash/photo-\(photo.remoteId)"
                #expect(requestsAfter[key] == requestsBefore[key], "\(photo.id) was fetched again")
            }
            var sizes: Int64 = 0
            for photo in cut { sizes += Int64(try await devstack.cdnBytes(photo.url).count) }
            let cdnBefore = (before["bytes_served"] as? [String: Int])?["GET /cdn/unsplash/{name}"] ?? 0
            let cdnAfter = (after["bytes_served"] as? [String: Int])?["GET /cdn/unsplash/{name}"] ?? 0
            let served = Int64(cdnAfter - cdnBefore)
            print("kill -9: \(served) bytes fetched after the restart for \(cut.count) cut files of \(sizes) bytes in all (\(Int64(head) * 4) resumed from .part)")
            #expect(served == sizes - Int64(head) * Int64(cut.count), "only the missing tails came down again")
            #expect(daemon.leftovers().isEmpty, "\(daemon.leftovers())")
            #expect(!FileManager.default.fileExists(atPath: stray))
            #expect(cachePieces.filter { FileManager.default.fileExists(atPath: $0) } == [])
            for photo in photos {
                let file = try #require(try await daemon.client.send(PhotosShowRequest(id: photo.id)).files.first)
                #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file.path))) == (try await devstack.cdnBytes(photo.url)))
            }
        }
    }

    /// An unliked photo's file becomes cache (evictable), and a re-like brings it back to the library
    /// without the network; above cache.max_bytes an unliked file is evicted at once.
    @Test func unlikedFilesBecomeCacheAndReturnWithoutTheNetwork() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photos = try await daemon.seedCatalogue(count: 2)
            for photo in photos { _ = try await daemon.client.send(PhotosLikeRequest(id: photo.id)) }
            _ = try await daemon.waitForLibrary(files: 2)
            let requests = try await devstack.counters()["requests_total"] as? Int ?? 0

            _ = try await daemon.client.send(PhotosUnlikeRequest(id: photos[0].id))
            var usage = try await daemon.waitForUsage { $0.cacheFiles == 1 }
            #expect(usage.libraryFiles == 1 && usage.cacheFiles == 1)
            var file = try #require(try await daemon.client.send(PhotosShowRequest(id: photos[0].id)).files.first)
            #expect(file.location == .cache && file.present && file.path == daemon.directory + "/cache/images/unsplash/\(photos[0].remoteId).regular.jpg")
            #expect(!FileManager.default.fileExists(atPath: daemon.directory + "/data/library/unsplash/\(photos[0].remoteId).regular.jpg"))

            _ = try await daemon.client.send(PhotosLikeRequest(id: photos[0].id))
            usage = try await daemon.waitForUsage { $0.libraryFiles == 2 }
            #expect(usage.libraryFiles == 2 && usage.cacheFiles == 0)
            file = try #require(try await daemon.client.send(PhotosShowRequest(id: photos[0].id)).files.first)
            #expect(file.location == .library && file.present)
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file.path))) == (try await devstack.cdnBytes(photos[0].url)))
            // Only the comparison's own request and the likes' pushes reached devstack; no CDN fetch by the daemon.
            let counters = try await devstack.counters()
            let cdnRequests = (counters["requests"] as? [String: Int])?["GET /cdn/unsplash/{name}"] ?? 0
            #expect(cdnRequests == 3, "two downloads and this test's own comparison: \(cdnRequests) (\(requests) requests before)")
            await daemon.stop()

            // With a cache of 1 byte, an unliked file is evicted as soon as it leaves the library.
            let small = try await fixture.splashd(.sync(config: "[cache]\nmax_bytes = 1\n"))
            let more = try await small.seedCatalogue(count: 1)
            _ = try await small.client.send(PhotosLikeRequest(id: more[0].id))
            _ = try await small.waitForLibrary(files: 1)
            _ = try await small.client.send(PhotosUnlikeRequest(id: more[0].id))
            // The move to the cache and the eviction are two steps (ImageQueue: reconcile, then evict), so
            // the state between them, in the cache and not yet evicted, can be read; wait for the end state.
            usage = try await small.waitForUsage { $0.libraryFiles == 0 && $0.cacheFiles == 0 }
            #expect(usage.libraryFiles == 0 && usage.cacheFiles == 0 && usage.maxBytes == 1)
            #expect(try await small.client.send(PhotosShowRequest(id: more[0].id)).files.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: small.directory + "/cache/images/unsplash/\(more[0].remoteId).regular.jpg"))
        }
    }

    /// A kill between a move's rename and its row, with the like changed meanwhile (the chaos crash
    /// part's random kills, trial 62: liked, the row in the library, the file in the cache, and nothing
    /// ever fetched or moved it again). Both crossings are built by hand here, as the kill leaves them:
    /// at the start the rows follow their files, then the likes decide where each belongs.
    @Test func aMoveCutShortByAKillWhileTheLikeChangedIsFinishedAtTheStart() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            var daemon = try await fixture.splashd(.sync())
            let directory = daemon.directory
            let photos = try await daemon.seedCatalogue(count: 2)
            for photo in photos { _ = try await daemon.client.send(PhotosLikeRequest(id: photo.id)) }
            _ = try await daemon.waitForLibrary(files: 2)
            _ = try await daemon.client.send(PhotosUnlikeRequest(id: photos[1].id))
            _ = try await daemon.waitForUsage { $0.cacheFiles == 1 }
            await daemon.stop()
            let library = { (photo: Splashd.Photo) in directory + "/data/library/unsplash/\(photo.remoteId).regular.jpg" }
            let cache = { (photo: Splashd.Photo) in directory + "/cache/images/unsplash/\(photo.remoteId).regular.jpg" }
            // Liked, its row in the library, its file already renamed into the cache (an unlike's move cut
            // short, re-liked before the kill); unliked, its row in the cache, its file back in the library.
            try FileManager.default.createDirectory(atPath: directory + "/cache/images/unsplash", withIntermediateDirectories: true)
            #expect(rename(library(photos[0]), cache(photos[0])) == 0)
            #expect(rename(cache(photos[1]), library(photos[1])) == 0)
            let before = try await devstack.counters()

            daemon = try await fixture.splashd(.sync(directory: directory, email: daemon.account))
            // The rows already count one library and one cache file: wait on the files themselves.
            _ = try await eventually(within: .seconds(20), every: .milliseconds(100)) {
                let shown = try await (daemon.client.send(PhotosShowRequest(id: photos[0].id)), daemon.client.send(PhotosShowRequest(id: photos[1].id)))
                return shown.0.files.first.map { $0.present && $0.location == .library } == true
                    && shown.1.files.first.map { $0.present && $0.location == .cache } == true
            }
            let usage = try await daemon.client.send(CacheStatusRequest())
            #expect(usage.libraryFiles == 1 && usage.cacheFiles == 1)
            let liked = try #require(try await daemon.client.send(PhotosShowRequest(id: photos[0].id)).files.first)
            #expect(liked.location == .library && liked.present && liked.path == library(photos[0]))
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: library(photos[0])))) == (try await devstack.cdnBytes(photos[0].url)))
            let unliked = try #require(try await daemon.client.send(PhotosShowRequest(id: photos[1].id)).files.first)
            #expect(unliked.location == .cache && unliked.present && unliked.path == cache(photos[1]))
            #expect(!FileManager.default.fileExists(atPath: library(photos[1])))
            let after = try await devstack.counters()
            let fetches = { (counters: [String: Any]) in (counters["requests"] as? [String: Int])?["GET /cdn/unsplash/{name}"] ?? 0 }
            #expect(fetches(after) - fetches(before) == 1, "only this test's own comparison: nothing was fetched again")
        }
    }

    /// `images.changed` events until `done` says enough (or 20 s pass).
    static func imageEvents(_ client: SplashClient, until done: @escaping @Sendable ([ImagesProgress]) -> Bool) async throws -> [ImagesProgress] {
        try await withThrowingTaskGroup(of: [ImagesProgress]?.self) { group in
            group.addTask {
                var events: [ImagesProgress] = []
                while !done(events), let note = try await client.nextEvent() {
                    if case .imagesChanged(let progress) = note.event { events.append(progress) }
                }
                return events
            }
            group.addTask {
                try await Task.sleep(for: .seconds(20))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return try #require(first, "no complete set of images.changed events within 20 s")
        }
    }

    /// The cache is evicted least-recently-used down to the limit; library files are never touched.
    @Test func cachePruneEvictsLeastRecentlyUsedAndNeverTheLibrary() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photos = try await daemon.seedCatalogue(count: 5)
            _ = try await daemon.client.send(PhotosLikeRequest(id: photos[0].id))
            _ = try await daemon.waitForLibrary(files: 1)
            // Four cache files of 1000 bytes, used at t, t+1, t+2, t+3.
            let store = try Store(path: daemon.databasePath)
            let now = Date()
            for (n, photo) in photos.dropFirst().enumerated() {
                let relative = "images/\(photo.remoteId).thumb.jpg"
                try FileManager.default.createDirectory(atPath: daemon.directory + "/cache/images", withIntermediateDirectories: true)
                _ = FileManager.default.createFile(atPath: daemon.directory + "/cache/" + relative, contents: Data([0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0, count: 997)))
                try store.write { db in
                    try PhotoFileStore.record(db, .init(
                        photoId: photo.id, variant: "thumb", path: relative, inLibrary: false, bytes: 1000, checksum: nil,
                        createdAt: now, lastAccessAt: now.addingTimeInterval(Double(n))))
                }
            }
            var usage = try await daemon.client.send(CacheStatusRequest())
            #expect(usage.cacheFiles == 4 && usage.cacheBytes == 4000 && usage.libraryFiles == 1 && usage.maxBytes == 1 << 30)
            let pruned = try await daemon.client.send(CachePruneRequest(keepBytes: 2500))
            #expect(pruned == CachePruneResult(removedFiles: 2, removedBytes: 2000, cacheBytes: 2000))
            let oldest = photos[1], newest = photos[4]
            #expect(!FileManager.default.fileExists(atPath: daemon.directory + "/cache/images/\(oldest.remoteId).thumb.jpg"))
            #expect(FileManager.default.fileExists(atPath: daemon.directory + "/cache/images/\(newest.remoteId).thumb.jpg"))
            #expect(try await daemon.client.send(PhotosShowRequest(id: oldest.id)).files.isEmpty)
            #expect(try await daemon.client.send(PhotosShowRequest(id: newest.id)).files.first?.location == .cache)
            _ = try await daemon.client.send(CachePruneRequest())
            usage = try await daemon.client.send(CacheStatusRequest())
            #expect(usage.cacheFiles == 0 && usage.libraryFiles == 1)
            #expect(try await daemon.client.send(PhotosShowRequest(id: photos[0].id)).files.first?.present == true)

            // splashctl says the same in words.
            let ctl = try await ChildProcess.run(DaemonProcess.splashctlPath, ["--socket", daemon.process.socketPath, "cache"], environment: [:], timeout: .seconds(10))
            #expect(ctl.status == 0 && ctl.stdout.contains("library") && ctl.stdout.contains("1 file"), "\(ctl.stdout)\(ctl.stderr)")
            let show = try await ChildProcess.run(
                DaemonProcess.splashctlPath, ["--socket", daemon.process.socketPath, "photos", "show", "--verbose", photos[0].id], environment: [:],
                timeout: .seconds(10))
            #expect(show.status == 0 && show.stdout.contains("/data/library/unsplash/") && show.stdout.contains("library"), "\(show.stdout)\(show.stderr)")
        }
    }
}
