import Foundation
import Shared
import SplashClient
import Testing
import TestSupport

/// Near-duplicates refused when the file arrives (issue 20, item 6), end to end against devstack: a
/// like of a photo never seen before waits for its file; one whose file looks like a photo already in
/// the library is held in the `duplicate` state and never reaches the server until the person keeps
/// it; the others go as soon as their file has been compared.
@Suite(.serialized, .devstack) struct LikeCheckTests {
    @Test func aLikeWhoseFileLooksLikeALibraryPhotoWaitsForThePerson() async throws {
        try await SplashdFixture.run { fixture in
            // The check may wait a minute: a like sent before that was released by its comparison.
            let daemon = try await fixture.splashd(.sync(config: "[import]\nduplicate_check_seconds = 60\n"))
            let devstack = try #require(daemon.devstack)
            let photos = try await daemon.seedCatalogue(count: 2)
            let twin = photos[0], other = photos[1]
            // The library holds twin's picture already, imported from a folder.
            let folder = daemon.directory + "/Pictures"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(try await devstack.cdnBytes(twin.url)).write(to: URL(fileURLWithPath: folder + "/copy.jpg"))
            let imported = try #require(try await daemon.send(LibraryImportRequest(path: folder)).imported.first)

            let liked = try await daemon.send(PhotosLikeRequest(id: twin.id))
            #expect(liked.liked && liked.queued, "the like is made at once, its hash unknown: \(liked)")
            _ = try await daemon.send(PhotosLikeRequest(id: other.id))

            func heldOp() async throws -> QueuedOp? {
                try await daemon.send(QueueListRequest()).ops.first { $0.entityId == twin.id && $0.state == "duplicate" }
            }
            try await daemon.wait(for: "the twin's like held as a duplicate") { try await heldOp() != nil }
            let held = try #require(try await heldOp())
            #expect(held.duplicateOf == imported.id && held.distance == 0, "\(held)")
            try await daemon.wait(for: "the other like on the server, long before its check's minute") {
                try await daemon.serverLikes()[other.id] == false
            }
            #expect(try await daemon.serverLikes()[twin.id] == nil, "a held like is not sent")
            try await daemon.wait(for: "status counting the held like apart") {
                let outbox = try await daemon.send(StatusRequest()).outbox
                return outbox.duplicates == 1 && outbox.pending == 0
            }
            let shown = try await daemon.ctl(["queue"])
            #expect(shown.status == 0 && shown.stdout.contains("duplicate") && shown.stdout.contains(imported.id), "\(shown)")

            // Kept by the person: it goes.
            _ = try await daemon.send(QueueRetryRequest(opId: held.opId))
            try await daemon.wait(for: "the kept like on the server") { try await daemon.serverLikes()[twin.id] == false }
            #expect(try await daemon.send(QueueListRequest()).ops.isEmpty)
        }
    }
}
