import Clocks
import Control
@testable import Daemon
import Foundation
import GRDB
import Library
import Logging
import NIOCore
import Shared
import SplashClient
import Store
import Synchronization
import Systemd
import TestSupport
import Web

/// The daemon's own graph (`DaemonGraph`, as `DaemonRunner` builds it: every capability and route)
/// over a real Store in a directory of the test's, with no backend configured and nothing started,
/// reached through `InProcessConnection` exactly as a socket client would: no process, no socket, no
/// network. The store holds a photo `unsplash:<id>` ("Photo <id>") for each id given. What building
/// opened (HTTP clients' threads, event loops) closes when the test lets go of it. Time passes for the
/// graph only when the test advances `clock`.
public final class InProcessDaemon: Sendable {
    public let directory = TemporaryDirectory()
    public let clock = TestClock<Duration>()
    let graph: DaemonGraph
    private let gallery = Mutex<Task<Void, any Error>?>(nil)
    public var store: Store { graph.store }
    public var state: DaemonState { graph.state }
    public var router: Router { graph.router }
    public var config: DaemonConfig { graph.config }
    public var logger: Logger { graph.logger }
    /// The library's directory (a file's `path` in the store is relative to it).
    public var dataDirectory: String { directory.path + "/data" }

    /// The gallery, when a test starts it, listens on a port the kernel gives and serves the
    /// repository's own page. `configure` changes the config before the graph is made of it.
    public init(photos: [String] = ["a", "b"], configure: (inout DaemonConfig) -> Void = { _ in }) async throws {
        let home = directory.path
        let web = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../web").standardizedFileURL.path
        let environment = ["HOME": home, "SPLASHD_WEB_PORT": "0", "SPLASHD_WEB_ROOT": web]
        var config = try DaemonConfig.load(file: nil, environment: environment)
        configure(&config)
        let directories = try DaemonDirectories.resolve(
            flags: .init(stateDir: home + "/state", dataDir: home + "/data", cacheDir: home + "/cache", socket: home + "/control.sock"),
            environment: environment)
        try directories.create()
        let store = try Store(path: directories.databasePath)
        try store.write { db in
            for id in photos { try PhotoRecord(source: .unsplash, remoteId: id, title: "Photo \(id)", fetchedAt: Date()).insert(db) }
        }
        graph = try await DaemonGraph.make(
            config: config, directories: directories, store: store, socket: .path(directories.socket),
            notifier: SystemdNotifier(), clock: AnyClock(clock), logger: Logger(label: "test"))
    }

    deinit {
        let graph = graph
        guard let gallery = gallery.withLock({ $0 }) else {
            graph.http.shutdownAll()
            try? graph.eventLoops.syncShutdownGracefully()
            return
        }
        // A gallery that ran closes its connections on the graph's event loops: they go once it has.
        gallery.cancel()
        Task.detached {
            _ = await gallery.result
            graph.http.shutdownAll()
            try? await graph.eventLoops.shutdownGracefully()
        }
    }

    /// Runs `body` with a typed client on a connection of its own.
    public func client<T: Sendable>(_ body: @Sendable (SplashClient) async throws -> T) async throws -> T {
        try await InProcessConnection.with(router: router) { connection in try await body(SplashClient(connection: connection)) }
    }

    /// Starts the web gallery's server (nothing else of the graph runs); its port once it listens.
    public func startGallery() async throws -> Int {
        struct NotListening: Error { let state: GalleryAddress.State }
        guard let server = graph.galleryServer else { throw NotListening(state: .failed(reason: "web.enabled is off")) }
        gallery.withLock { $0 = Task { try await server.run() } }
        let state = await server.address.settled(within: .seconds(10))
        guard case .listening(let port) = state else { throw NotListening(state: state) }
        return port
    }

    /// Signs the state in as `userId`, as the account capability would after a sign-in.
    public func signIn(_ userId: String = "u1") {
        state.setAccount(AccountStatus(state: .signedIn, userId: userId))
    }
}
