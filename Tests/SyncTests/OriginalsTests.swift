import Foundation
import Shared
import SplashClient
import Store
import Support
import Testing
import TestSupport

/// The originals of liked local photos travel: imported and liked on A, the file
/// goes to the account's Storage and arrives in B's library, byte for byte; one above
/// originals.max_mib stays on A with its upload rejected, the like itself synced.
@Suite(.serialized, .devstack) struct OriginalsTests {
    /// A folder in the daemon's directory with `files` JPEGs from devstack's catalogue (`padding` bytes
    /// after the image's end, which decoders ignore, make a file larger).
    static func folder(_ daemon: Splashd, files: Int, padding: Int = 0) async throws -> String {
        let devstack = try #require(daemon.devstack)
        let folder = daemon.directory + "/Pictures-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (index, photo) in try await daemon.seedCatalogue(count: files).enumerated() {
            var bytes = try await devstack.cdnBytes(photo.url)
            bytes += [UInt8](repeating: 0, count: padding)
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/photo\(index).jpg"))
        }
        return folder
    }

    /// A second device of `a`'s account, synced: it has the photo without its file, says why as `a` does,
    /// and counts it in status.
    @discardableResult
    static func otherDeviceSaysWhy(_ fixture: SplashdFixture, of a: Splashd, photo: String, note: String) async throws -> Splashd {
        let b = try await fixture.splashd(.sync(email: a.account))
        _ = try await b.send(LoginRequest(email: a.account, password: Splashd.password))
        _ = try await b.syncUntilDrained()
        let shown = try await b.send(PhotosShowRequest(id: photo))
        #expect(shown.files.isEmpty && shown.originalNote == note, "\(shown)")
        try await b.wait(for: "B's status to count it") { try await b.send(StatusRequest()).library.originalsNotShared == 1 }
        return b
    }

    @Test func aLikedLocalPhotosOriginalArrivesOnTheOtherDevice() async throws {
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync())
            let folder = try await Self.folder(a, files: 1)
            let imported = try #require(try await a.send(LibraryImportRequest(path: folder)).imported.first)
            _ = try await a.send(PhotosLikeRequest(id: imported.id))
            #expect(try await a.syncUntilDrained().drained)

            let b = try await fixture.splashd(.sync(email: a.account))
            _ = try await b.send(LoginRequest(email: a.account, password: Splashd.password))
            try await b.wait(for: "the original on B") {
                _ = try await b.send(SyncNowRequest(wait: true, timeoutSeconds: 10))
                return try await b.send(PhotosShowRequest(id: imported.id)).files.contains { $0.present }
            }
            let file = try #require(try await b.send(PhotosShowRequest(id: imported.id)).files.first)
            #expect(file.path.hasPrefix(b.directory), "in B's own library: \(file.path)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == Data(contentsOf: URL(fileURLWithPath: imported.path)))
            #expect(try await b.send(PhotosListRequest(liked: true)).photos.map(\.id) == [imported.id])
        }
    }

    /// A file above originals.max_mib is not sent: its photo's row says why, the op is done (nothing left
    /// refused in the queue), the like syncs, and both devices say why the photo has no file elsewhere.
    @Test func anOriginalAboveTheLimitStaysHereWithTheReasonOnBothDevices() async throws {
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync(config: "[originals]\nmax_mib = 1\n"))
            let folder = try await Self.folder(a, files: 1, padding: 1_500_000)
            let imported = try #require(try await a.send(LibraryImportRequest(path: folder)).imported.first)
            _ = try await a.send(PhotosLikeRequest(id: imported.id))
            #expect(try await a.syncUntilDrained().drained)
            #expect(try await a.send(QueueListRequest()).ops.isEmpty, "nothing refused, nothing waiting")
            #expect(try await a.serverLikes() == [imported.id: false], "the like itself is synced")
            let note = try #require(try await a.send(PhotosShowRequest(id: imported.id)).originalNote)
            #expect(note.hasPrefix("too large to share"), "\(note)")
            try await a.wait(for: "status to count it") { try await a.send(StatusRequest()).library.originalsNotShared == 1 }
            let (status, text, _) = try await a.ctl(["status"])
            #expect(status == 0 && text.contains("1 photo's original is not shared"), "\(text)")

            let b = try await Self.otherDeviceSaysWhy(fixture, of: a, photo: imported.id, note: note)
            let (_, show, _) = try await b.ctl(["photos", "show", imported.id])
            #expect(show.contains("original not shared: too large to share: "), "\(show)")
        }
    }

    /// An original the account's Storage refuses for good (here: too large for the bucket) is not sent
    /// again: the photo's row says why on both devices, and nothing is left refused in the queue.
    @Test func anOriginalStorageRefusesStaysHereWithTheServersReason() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync())
            let folder = try await Self.folder(a, files: 1)
            let imported = try #require(try await a.send(LibraryImportRequest(path: folder)).imported.first)
            try await devstack.faults(#"""
                [{"path": "/storage/v1/object/originals/*", "method": "POST", "status": 413,
                  "body": {"statusCode": "413", "error": "Payload too large", "message": "The object exceeded the maximum allowed size"}}]
                """#)
            _ = try await a.send(PhotosLikeRequest(id: imported.id))
            #expect(try await a.syncUntilDrained().drained)
            try await devstack.clearFaults()
            #expect(try await a.send(QueueListRequest()).ops.isEmpty, "nothing refused, nothing waiting")
            let note = try #require(try await a.send(PhotosShowRequest(id: imported.id)).originalNote)
            #expect(note.contains("refused by the account's storage") && note.contains("maximum allowed size"), "\(note)")

            _ = try await Self.otherDeviceSaysWhy(fixture, of: a, photo: imported.id, note: note)
        }
    }

    /// A photo picked from Google Photos and liked on A: its original goes to the account's Storage,
    /// named by its content's hash, and arrives in B's library byte for byte.
    @Test func aLikedGooglePhotosOriginalArrivesOnTheOtherDeviceByteForByte() async throws {
        try await SplashdFixture.run { fixture in
            let a = try await GooglePhotosImportTests.connected(fixture)
            let start = try await a.send(GooglePickRequest())
            try await GooglePhotosImportTests.pick(start, "pick=1")
            let picks = try await GooglePhotosImportTests.ended(a, start)
            let id = try #require(picks.picks.first?.photo)
            let mine = try #require(try await a.send(PhotosShowRequest(id: id)).files.first)
            _ = try await a.send(PhotosLikeRequest(id: id))
            #expect(try await a.syncUntilDrained().drained)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: mine.path))
            let devstack = try #require(a.devstack)
            let userId = try await a.userId()
            let row = try await devstack.serviceRead("photos?select=original_sha256&user_id=eq.\(userId)")
            let sha = try #require(row.first?["original_sha256"] as? String)
            #expect(sha == FileDigest.hex(SHA256.hash([UInt8](bytes))), "the row names the file's hash")

            let b = try await fixture.splashd(.sync(email: a.account))
            _ = try await b.send(LoginRequest(email: a.account, password: Splashd.password))
            try await b.wait(for: "the Google photo's original on B") {
                _ = try await b.send(SyncNowRequest(wait: true, timeoutSeconds: 10))
                return try await b.send(PhotosShowRequest(id: id)).files.contains { $0.present }
            }
            let theirs = try #require(try await b.send(PhotosShowRequest(id: id)).files.first)
            #expect(theirs.path.hasPrefix(b.directory), "in B's own library: \(theirs.path)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: theirs.path)) == bytes)
            #expect(try await b.send(PhotosListRequest(liked: true)).photos.map(\.id) == [id])
        }
    }
}
