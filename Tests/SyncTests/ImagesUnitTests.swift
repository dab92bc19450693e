#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB
import HTTP
import Logging
@testable import Store
@testable import Sync
import Shared
import Synchronization
import Testing
import TestSupport

/// The image queue's pure parts: file names, the JPEG check, failure classes; and LRU
/// eviction over a real store.
@Suite struct ImagesUnitTests {
    @Test func remoteIdsBecomeSafeDistinctFileNames() {
        #expect(ImagePaths.library(source: "unsplash", remoteId: "Dwu85P9SOIk", variant: "regular") == "library/unsplash/Dwu85P9SOIk.regular.jpg")
        let nasa = ImagePaths.library(source: "nasa", remoteId: "Apollo 11 a", variant: "large")
        #expect(nasa.hasPrefix("library/nasa/Apollo_11_a-") && nasa.hasSuffix(".large.jpg"))
        #expect(ImagePaths.safe("Apollo 11 a") != ImagePaths.safe("Apollo_11_a"), "ids differing only in replaced characters stay apart")
        for hostile in ["../../etc/passwd", ".hidden", "", String(repeating: "x", count: 400), "a/b"] {
            let name = ImagePaths.safe(hostile)
            #expect(!name.contains("/") && !name.hasPrefix(".") && !name.isEmpty && name.utf8.count <= 140, "\(hostile) → \(name)")
        }
    }

    @Test func onlyJPEGsPassTheCheck() throws {
        let directory = TemporaryDirectory()
        let jpeg = directory.path + "/a.jpg", html = directory.path + "/b.jpg", short = directory.path + "/c.jpg"
        FileManager.default.createFile(atPath: jpeg, contents: Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 0xFF, 0xD9]))
        // What a hostile CDN's endless body leaves: the right start, no end.
        let endless = directory.path + "/d.jpg"
        FileManager.default.createFile(atPath: endless, contents: Data([0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0x41, count: 100_000)))
        FileManager.default.createFile(atPath: html, contents: Data("<!DOCTYPE html><html>".utf8))
        FileManager.default.createFile(atPath: short, contents: Data([0xFF, 0xD8]))
        try JPEGCheck.verify(jpeg)
        #expect(throws: ImageFailure.self) { try JPEGCheck.verify(html) }
        do {
            try JPEGCheck.verify(html)
        } catch {
            #expect(error.message.contains("<!DOCTYPE html>") && !error.transient)
        }
        #expect(throws: ImageFailure.self) { try JPEGCheck.verify(short) }
        #expect { try JPEGCheck.verify(endless) } throws: { ($0 as? ImageFailure)?.message.contains("without its end") == true }
    }

    @Test func failuresAreClassedTransientOrPermanent() {
        #expect(ImageFailure(.network(curlCode: 18, message: "partial"))?.transient == true)
        #expect(ImageFailure(.timeout)?.transient == true)
        #expect(ImageFailure(.http(status: 503, headers: HTTPHeaders([("Retry-After", "7")]), body: []))?.retryAfter == 7)
        #expect(ImageFailure(.http(status: 429, headers: HTTPHeaders([]), body: []))?.transient == true)
        #expect(ImageFailure(.http(status: 404, headers: HTTPHeaders([]), body: []))?.transient == false)
        #expect(ImageFailure(.tooManyRedirects)?.transient == false)
        #expect(ImageFailure(.sizeMismatch(expected: 10, actual: 12))?.transient == true)
        #expect(ImageFailure(.cancelled) == nil && ImageFailure(.shutdown) == nil)
    }

    /// Least recently used cache files go first, down to the limit; library files are never touched.
    @Test func evictionIsLeastRecentlyUsedAndSparesTheLibrary() throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.path + "/s.sqlite")
        let cache = directory.path + "/cache"
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let now = Date()
        try store.write { db in
            for n in 0..<5 {
                try PhotoRecord(source: .unsplash, remoteId: "p\(n)", fetchedAt: now).insert(db)
            }
        }
        // p0 is a library file (the oldest use of all); p1...p4 cache files used at t+1...t+4.
        for n in 0..<5 {
            let path = "p\(n).jpg"
            FileManager.default.createFile(atPath: cache + "/" + path, contents: Data(repeating: 1, count: 100))
            try store.write { db in
                try PhotoFileStore.record(db, .init(
                    photoId: "unsplash:p\(n)", variant: "thumb", path: path, inLibrary: n == 0, bytes: 100, checksum: nil,
                    createdAt: now, lastAccessAt: now.addingTimeInterval(Double(n))))
            }
        }
        let images = ImageCache(store: store, cacheDirectory: cache, logger: Logger(label: "test"))
        #expect(images.evict(maxBytes: 400) == .init(files: 0, bytes: 0), "under the limit: nothing goes")
        #expect(images.evict(maxBytes: 250) == .init(files: 2, bytes: 200))
        #expect(!FileManager.default.fileExists(atPath: cache + "/p1.jpg") && !FileManager.default.fileExists(atPath: cache + "/p2.jpg"))
        #expect(FileManager.default.fileExists(atPath: cache + "/p3.jpg"))
        try store.write { db in try PhotoFileStore.touch(db, photoId: "unsplash:p3", now: now.addingTimeInterval(60)) }
        #expect(images.evict(maxBytes: 100) == .init(files: 1, bytes: 100))
        #expect(FileManager.default.fileExists(atPath: cache + "/p3.jpg"), "touched: used most recently, kept")
        #expect(images.evict(maxBytes: 0) == .init(files: 1, bytes: 100))
        let usage = try store.read { db in try PhotoFileStore.usage(db) }
        #expect(usage.cacheFiles == 0 && usage.libraryFiles == 1 && usage.libraryBytes == 100)
        #expect(FileManager.default.fileExists(atPath: cache + "/p0.jpg"))
    }

    /// A batch lands what it can: a staged file that is gone fails alone (no row, nothing renamed),
    /// the others take their final names and their rows.
    @Test func aLandingThatFailsLeavesTheRestOfItsBatchLanded() throws {
        let fixture = try CommitterFixture()
        let (store, library) = (fixture.store, fixture.library)
        let landings = try (0..<4).map { n in try fixture.landing(n, staged: n != 2) }
        let failures = FileCommitter(store: store).landBatch(landings)
        #expect(failures.map { $0 == nil } == [true, true, false, true])
        #expect(failures[2]?.transient == true)
        for n in 0..<4 {
            let rows = try store.read { db in try PhotoFileStore.files(db, photoId: "unsplash:p\(n)") }
            #expect(rows.map(\.checksum) == (n == 2 ? [] : ["c\(n)"]))
            #expect(FileManager.default.fileExists(atPath: library + "/p\(n).jpg") == (n != 2))
            #expect(!FileManager.default.fileExists(atPath: library + "/p\(n).jpg.download"))
        }
    }

    /// Files that finish while a batch is landing wait and land together in the next one: twenty
    /// arrivals, the first held in its batch until the nineteen others wait, land in two batches.
    @Test func arrivalsDuringABatchLandTogetherInTheNext() async throws {
        let fixture = try CommitterFixture()
        let store = fixture.store
        let batches = Mutex<[Int]>([])
        let holder = Mutex<FileCommitter?>(nil)
        let committer = FileCommitter(store: store) { size in
            let first = batches.withLock { batches in
                batches.append(size)
                return batches.count == 1
            }
            // Held until the others wait: no timing decides how they batch.
            while first, (holder.withLock { $0 }?.waitingCount ?? 0) < 19 { usleep(1_000) }
        }
        holder.withLock { $0 = committer }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<20 {
                let landing = try fixture.landing(n)
                group.addTask { try await committer.land(landing) }
                // The first one first: it is the batch that holds.
                if n == 0 { while batches.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) } }
            }
            try await group.waitForAll()
        }
        #expect(batches.withLock { $0 } == [1, 19])
        let recorded = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM photo_files") }
        #expect(recorded == 20)
    }
}

/// A store and a library folder for the file committer's tests, and photo `p<n>`'s landing into it.
private struct CommitterFixture {
    let directory = TemporaryDirectory()
    let store: Store
    let library: String
    let now = Date()

    init() throws {
        store = try Store(path: directory.path + "/s.sqlite")
        library = directory.path + "/library"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
    }

    /// Photo `p<n>`'s row, its staged file (10 bytes, unless `staged` is false: gone) and its landing,
    /// with checksum `c<n>`.
    func landing(_ n: Int, staged: Bool = true) throws -> FileCommitter.Landing {
        try store.write { db in try PhotoRecord(source: .unsplash, remoteId: "p\(n)", fetchedAt: now).insert(db) }
        let final = library + "/p\(n).jpg"
        if staged { FileManager.default.createFile(atPath: final + ".download", contents: Data(repeating: UInt8(n), count: 10)) }
        return FileCommitter.Landing(staged: final + ".download", final: final, file: .init(
            photoId: "unsplash:p\(n)", variant: "regular", path: "library/p\(n).jpg", inLibrary: true, bytes: 10, checksum: "c\(n)",
            createdAt: now, lastAccessAt: now))
    }
}
