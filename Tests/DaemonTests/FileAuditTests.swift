@testable import Daemon
import Foundation
import GRDB
import Library
import Shared
import Store
import Support
import Synchronization
import Testing
import TestSupport
import Web

/// After a run that did not end cleanly, the files it wrote are hashed before anything hands them out:
/// a damaged one is never served, its row and file go, and whoever fetches it again hears of it.
@Suite struct FileAuditTests {
    let directory = TemporaryDirectory()
    let store: Store
    let unclean = Date(timeIntervalSince1970: 1_795_000_000)

    init() throws {
        try FileManager.default.createDirectory(atPath: directory.file("data/library/unsplash"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("cache/images/unsplash"), withIntermediateDirectories: true)
        store = try Store(path: directory.file("store.sqlite"))
        try store.write { db in
            for id in ["a", "b", "c", "d"] { try PhotoRecord(source: .unsplash, remoteId: id, fetchedAt: Date()).insert(db) }
        }
    }

    /// A library file `unsplash/ID.jpg` holding `bytes`, recorded at `recorded` with the checksum of `recordedBytes`.
    func add(_ id: String, bytes: String, recordedBytes: String? = nil, recorded: Date, inLibrary: Bool = true) throws {
        let relative = inLibrary ? "library/unsplash/\(id).jpg" : "images/unsplash/\(id).jpg"
        let full = directory.file((inLibrary ? "data/" : "cache/") + relative)
        try Data(bytes.utf8).write(to: URL(fileURLWithPath: full))
        let checksum = FileDigest.hex(SHA256.hash(Array((recordedBytes ?? bytes).utf8)))
        try store.write { db in
            try PhotoFileStore.record(db, .init(
                photoId: "unsplash:" + id, variant: "regular", path: relative, inLibrary: inLibrary, bytes: Int64(bytes.utf8.count),
                checksum: checksum, createdAt: recorded, lastAccessAt: recorded))
        }
    }

    func audit() throws -> FileAudit {
        try FileAudit.filesRecorded(
            since: unclean, store: store, dataDirectory: directory.file("data"), cacheDirectory: directory.file("cache"))
    }

    func rows() throws -> [String] {
        try store.read { db in try String.fetchAll(db, sql: "SELECT photo_id FROM photo_files ORDER BY photo_id") }
    }

    @Test func aDamagedFileIsNeverServedAndGoesWithItsRow() async throws {
        try add("a", bytes: "garbage", recordedBytes: "jpeg of a", recorded: unclean.addingTimeInterval(5))
        try add("b", bytes: "jpeg of b", recorded: unclean.addingTimeInterval(6))
        let audit = try audit()
        let heard = Mutex<[String]>([])
        audit.followRemovals { key, reason in heard.withLock { $0.append("\(key.photoId) \(reason)") } }
        #expect(audit.remaining == 2)
        let pictures = GalleryImageFiles.following(
            library: PhotoLibrary(store: store, audit: audit), images: nil, dataDirectory: directory.file("data"),
            cacheDirectory: directory.file("cache"))

        // Asked for before the background check: hashed there, found damaged, not served.
        await #expect(throws: GalleryPictureUnavailable.self) { try await pictures.file(photoId: "unsplash:a", size: .original) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("data/library/unsplash/a.jpg")))
        #expect(try rows() == ["unsplash:b"])
        #expect(heard.withLock { $0.count } == 1)
        #expect(heard.withLock { $0.first?.hasPrefix("unsplash:a its bytes hash to") } == true)
        // A whole one is served once hashed, and the rest is left to the background check.
        #expect(try await pictures.file(photoId: "unsplash:b", size: .original)?.path == directory.file("data/library/unsplash/b.jpg"))
        #expect(audit.remaining == 0)
        #expect(audit.checkAll().isEmpty)
    }

    @Test func theBackgroundCheckFindsWhatNobodyAskedFor() throws {
        try add("a", bytes: "jpeg of a", recorded: unclean.addingTimeInterval(1))
        try add("b", bytes: "torn", recordedBytes: "jpeg of b", recorded: unclean.addingTimeInterval(2), inLibrary: false)
        // Written before the unclean run began: flushed by a run that ended cleanly, not suspected.
        try add("c", bytes: "torn too", recordedBytes: "jpeg of c", recorded: unclean.addingTimeInterval(-1))
        let audit = try audit()
        #expect(audit.remaining == 2)
        let damaged = audit.checkAll()
        #expect(damaged.map(\.key.photoId) == ["unsplash:b"])
        #expect(try rows() == ["unsplash:a", "unsplash:c"])
        #expect(!FileManager.default.fileExists(atPath: directory.file("cache/images/unsplash/b.jpg")))
        #expect(audit.remaining == 0)
    }

    @Test func aFileGoneOrTheSourcesOwnIsNotJudged() throws {
        // Gone: the image queue fetches a file its row names in vain already.
        try add("a", bytes: "jpeg of a", recorded: unclean.addingTimeInterval(1))
        try FileManager.default.removeItem(atPath: directory.file("data/library/unsplash/a.jpg"))
        // An imported file where it lies is the person's: never removed, whatever its bytes now.
        let own = directory.file("own.jpg")
        try Data("edited by its owner".utf8).write(to: URL(fileURLWithPath: own))
        try store.write { db in
            try PhotoFileStore.record(db, .init(
                photoId: "unsplash:d", variant: "regular", path: own, inLibrary: true, bytes: 3, checksum: "not-its-hash",
                createdAt: unclean.addingTimeInterval(1), lastAccessAt: unclean))
        }
        let audit = try audit()
        #expect(audit.checkAll().isEmpty)
        #expect(try rows() == ["unsplash:a", "unsplash:d"])
        #expect(FileManager.default.fileExists(atPath: own))
    }

    @Test func aCleanStopLeavesNothingToCheck() throws {
        let mark = RunMark(stateDirectory: directory.path)
        #expect(try mark.begin(now: unclean) == nil)
        // Not ended: the next start hears when the unclean run began.
        #expect(try mark.begin(now: unclean.addingTimeInterval(60)) == unclean)
        #expect(try mark.begin(now: unclean.addingTimeInterval(120)) == unclean.addingTimeInterval(60))
        mark.end()
        #expect(try mark.begin(now: unclean) == nil)
        // A mark cut while it was written: unclean since when is unknown, so everything is checked.
        try Data().write(to: URL(fileURLWithPath: mark.path))
        #expect(try mark.begin(now: unclean) == .distantPast)
    }
}
