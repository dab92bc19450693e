import Control
@testable import Daemon
import Foundation
import GRDB
import Library
import Logging
import Shared
import SplashClient
import Store
import Testing
import TestSupport

/// The handlers below the socket: the daemon's own router over a real Store, driven through
/// `InProcessConnection` exactly as a socket client would, with no daemon process and no network.
@Suite struct HandlerTests {
    let daemon: InProcessDaemon
    var state: DaemonState { daemon.state }

    init() throws {
        daemon = try InProcessDaemon(photos: ["a", "b"])
    }

    func with<T: Sendable>(_ body: @Sendable (SplashClient) async throws -> T) async throws -> T {
        try await daemon.client(body)
    }

    func error<R: RPCRequest>(_ request: R) async throws -> RPCError {
        try await with { client in
            do {
                _ = try await client.send(request)
            } catch let error as RPCError {
                return error
            }
            throw RPCError(.internalError, "\(R.method) succeeded")
        }
    }

    @Test func aLikeIsQueuedCountedAndAnnounced() async throws {
        daemon.signIn()
        let (liked, queue, event) = try await with { client in
            _ = try await client.send(SubscribeRequest(types: ["photo.changed"]))
            let liked = try await client.send(PhotosLikeRequest(id: "unsplash:a"))
            return (liked, try await client.send(QueueListRequest()), try await client.nextEvent())
        }
        #expect(liked.liked && liked.changed && liked.queued)
        #expect(queue.ops.map(\.entityId) == ["unsplash:a"] && queue.ops.first?.op == "like")
        #expect(event?.event == .photoChanged(PhotoChange(id: "unsplash:a", change: .liked)))
        #expect(state.current.outbox.pending == 1, "the counters were refreshed")
        #expect(state.current.library.liked == 1)
    }

    @Test func aQueuedOpCanBeDroppedButNotTwice() async throws {
        daemon.signIn()
        let op = try await with { client in
            _ = try await client.send(PhotosLikeRequest(id: "unsplash:b"))
            return try #require(try await client.send(QueueListRequest()).ops.first).opId
        }
        let dropped = try await with { client in try await client.send(QueueDropRequest(opId: op)) }
        #expect(dropped.state == "dropped")
        #expect(state.current.outbox.pending == 0)
        #expect(try await error(QueueDropRequest(opId: op)).kind == .notFound)
    }

    @Test func errorsComeFromTheDomainInTheProtocolsWords() async throws {
        #expect(try await error(SyncNowRequest()).kind == .notSignedIn)
        daemon.signIn()
        let unknown = try await error(PhotosLikeRequest(id: "unsplash:nowhere"))
        #expect(unknown.kind == .notFound && unknown.data?.field == "id")
        #expect(try await error(PhotosShowRequest(id: "unsplash:nowhere")).kind == .notFound)
    }

    /// A router without editing, imports or image files (libvips or libcurl did not start) still
    /// routes those methods, and every one of them answers the same missing-capability error.
    @Test func methodsWithoutTheirCapabilityAnswerOneKind() async throws {
        daemon.signIn()
        let answers = [
            try await error(EditsCreateRequest(id: "unsplash:a", filters: [FilterStep(filter: "sepia", params: [0.5])])),
            try await error(LibraryImportRequest(path: daemon.directory.path)),
            try await error(CachePruneRequest()),
            try await error(ProfileGetRequest()),
        ]
        #expect(answers.allSatisfy { $0.kind == .internalError && $0.message.hasPrefix("not available in this daemon: ") }, "\(answers)")
    }

    @Test func showAndCacheStatusAnswerFromTheStoreWithoutTheImageQueue() async throws {
        let (shown, usage) = try await with { client in
            (try await client.send(PhotosShowRequest(id: "unsplash:a")), try await client.send(CacheStatusRequest()))
        }
        #expect(shown.id == "unsplash:a" && shown.title == "Photo a" && shown.download == nil)
        #expect(usage.libraryFiles == 0 && usage.maxBytes == 0)
        #expect(usage.libraryDirectory == DaemonStatus.example.directories.data + "/library")
    }
}
