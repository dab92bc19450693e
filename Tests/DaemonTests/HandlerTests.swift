import Control
@testable import Daemon
import DaemonTestSupport
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

    init() async throws {
        daemon = try await InProcessDaemon(photos: ["a", "b"])
    }

    func with<T: Sendable>(_ body: @Sendable (SplashClient) async throws -> T) async throws -> T {
        try await daemon.client(body)
    }

    /// The router as a daemon whose optional capabilities did not start builds it (libvips or libcurl
    /// missing): the library's routes over the same store and state, every other method still routed.
    func withoutCapabilities<T: Sendable>(_ body: @Sendable (SplashClient) async throws -> T) async throws -> T {
        let router = Routes.make(state: state, library: PhotoLibrary(store: daemon.store), logger: Logger(label: "test"))
        return try await InProcessConnection.with(router: router) { connection in try await body(SplashClient(connection: connection)) }
    }

    func error<R: RPCRequest>(_ request: R) async throws -> RPCError {
        try await with { client in
            do {
                _ = try await client.send(request)
            } catch let error as RPCError {
                return error
            }
            throw RPCError(code: ErrorKind.internalError.code, message: "\(R.method) succeeded", data: RPCError.Details(kind: .internalError))
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

    /// A like of a photo that looks like one already in the library (perceptual hashes a bit apart,
    /// as a thumbnail's hash makes known before any download) is refused as `duplicate`, naming the
    /// twin, and done when asked with allow_duplicate; a photo unlike all of them is liked as ever.
    @Test func aNearDuplicateLikeIsRefusedUnlessAllowed() async throws {
        let twins = try await InProcessDaemon(photos: ["a", "b", "c"])
        twins.signIn()
        try twins.store.write { db in
            try PerceptualHashQuery.set(db, hash: 0x0F0F_0F0F_0F0F_0F0F, photoId: "unsplash:a")
            try PerceptualHashQuery.set(db, hash: 0x0F0F_0F0F_0F0F_0F0E, photoId: "unsplash:b")  // 1 bit from a
            try PerceptualHashQuery.set(db, hash: 0xF0F0_F0F0_F0F0_F0F0, photoId: "unsplash:c")  // 64 bits from a
        }
        let refusal: RPCError? = try await twins.client { client async throws -> RPCError? in
            #expect(try await client.send(PhotosLikeRequest(id: "unsplash:a")).liked)
            do {
                _ = try await client.send(PhotosLikeRequest(id: "unsplash:b"))
                return nil
            } catch let error as RPCError {
                return error
            }
        }
        #expect(refusal?.kind == .duplicate && refusal?.data?.field == "id")
        #expect(refusal?.message == "unsplash:b looks like unsplash:a, already in your library (1 of 64 bits apart); like it anyway with --allow-duplicate")
        try await twins.client { client async throws -> Void in
            #expect(try await client.send(QueueListRequest()).ops.map(\.entityId) == ["unsplash:a"], "nothing queued for the refused like")
            #expect(try await client.send(PhotosLikeRequest(id: "unsplash:b", allowDuplicate: true)).liked)
            #expect(try await client.send(PhotosLikeRequest(id: "unsplash:c")).liked)
            #expect(try await client.send(PhotosLikeRequest(id: "unsplash:b")).changed == false, "liked already: no twin to refuse for")
        }
        #expect(ErrorKind.duplicate.exitCode == 65 && ErrorKind.duplicate.code == -32011)
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
        func refusal<R: RPCRequest>(_ request: R) async throws -> RPCError? {
            try await withoutCapabilities { client in
                do {
                    _ = try await client.send(request)
                    return nil
                } catch let error as RPCError {
                    return error
                }
            }
        }
        let answers = [
            try await refusal(EditsCreateRequest(id: "unsplash:a", filters: [FilterStep(filter: "sepia", params: [0.5])])),
            try await refusal(LibraryImportRequest(path: daemon.directory.path)),
            try await refusal(CachePruneRequest()),
            try await refusal(ProfileGetRequest()),
        ].compactMap { $0 }
        #expect(answers.count == 4, "every one refused: \(answers)")
        #expect(answers.allSatisfy { $0.kind == .internalError && $0.message.hasPrefix("not available in this daemon: ") }, "\(answers)")
    }

    /// The graph in process is the daemon's whole: the image queue's cache answers with its configured
    /// limit, and the account's routes say what the account capability says (no backend: not signed in).
    @Test func theWholeGraphAnswersInProcess() async throws {
        let usage = try await with { client in try await client.send(CacheStatusRequest()) }
        #expect(usage.maxBytes == daemon.config.cacheMaxBytes && usage.maxBytes > 0, "\(usage)")
        #expect(try await error(ProfileGetRequest()).kind == .notSignedIn)
    }

    @Test func showAndCacheStatusAnswerFromTheStoreWithoutTheImageQueue() async throws {
        let (shown, usage) = try await withoutCapabilities { client in
            (try await client.send(PhotosShowRequest(id: "unsplash:a")), try await client.send(CacheStatusRequest()))
        }
        #expect(shown.id == "unsplash:a" && shown.title == "Photo a" && shown.download == nil)
        #expect(usage.libraryFiles == 0 && usage.maxBytes == 0)
        #expect(usage.libraryDirectory == state.directories.data + "/library")
    }
}
