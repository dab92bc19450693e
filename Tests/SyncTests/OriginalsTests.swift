import Foundation
import Shared
import SplashClient
import Store
import Testing
import TestSupport

/// The originals of liked local photos travel (issue 20, item 3): imported and liked on A, the file
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

    @Test func anOriginalAboveTheLimitStaysHereWithTheReason() async throws {
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync(config: "[originals]\nmax_mib = 1\n"))
            let folder = try await Self.folder(a, files: 1, padding: 1_500_000)
            let imported = try #require(try await a.send(LibraryImportRequest(path: folder)).imported.first)
            _ = try await a.send(PhotosLikeRequest(id: imported.id))
            _ = try await a.send(SyncNowRequest(wait: true, timeoutSeconds: 20))
            let rejected = try await a.send(QueueListRequest(rejected: true)).ops
            #expect(rejected.count == 1 && rejected.first?.entity == "original", "\(rejected)")
            #expect(rejected.first?.lastError?.hasPrefix("too large") == true, "\(String(describing: rejected.first?.lastError))")
            #expect(try await a.serverLikes() == [imported.id: false], "the like itself is synced")
        }
    }
}
