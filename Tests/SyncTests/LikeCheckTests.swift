import Foundation
import GRDB
import Shared
import SplashClient
import Store
import Testing
import TestSupport

/// Near-duplicates refused when the file arrives, end to end against devstack: a
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
            // The server commits before the daemon hears its answer and takes the op out of the outbox.
            try await daemon.wait(for: "the outbox empty once the answer is recorded") { try await daemon.send(QueueListRequest()).ops.isEmpty }
        }
    }

    /// A like never waits for a file that cannot come: the first download from a host that refuses
    /// connections fails and releases its like; the host is then known to be down, and the next like of
    /// a photo there is sent at once, not after its check's minute.
    @Test func aLikeDoesNotWaitForAFileFromAHostThatIsDown() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync(config: "[import]\nduplicate_check_seconds = 60\n"))
            let store = try Store(path: daemon.databasePath)
            let ids = ["refused1", "refused2"]
            try store.write { db in
                for id in ids {
                    try PhotoRecord(source: .unsplash, remoteId: id, urls: #"{"regular":"http://127.0.0.1:1/\#(id).jpg"}"#, fetchedAt: Date()).insert(db)
                }
            }
            _ = try await daemon.send(PhotosLikeRequest(id: "unsplash:refused1"))
            try await daemon.wait(for: "the first like on the server, its download failed") {
                try await daemon.serverLikes()["unsplash:refused1"] == false
            }
            try await daemon.wait(for: "the host known to be down") {
                try await daemon.send(StatusRequest()).services?.contains { $0.service == "127.0.0.1:1" && $0.state == .down } == true
            }
            _ = try await daemon.send(PhotosLikeRequest(id: "unsplash:refused2"))
            #expect(try await daemon.send(QueueListRequest()).ops.allSatisfy { $0.lastError == nil }, "nothing waits for a file")
            try await daemon.wait(for: "the second like on the server") { try await daemon.serverLikes()["unsplash:refused2"] == false }
        }
    }
}
