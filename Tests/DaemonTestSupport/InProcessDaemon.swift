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
import Systemd
import TestSupport

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
    public var store: Store { graph.store }
    public var state: DaemonState { graph.state }
    public var router: Router { graph.router }
    public var config: DaemonConfig { graph.config }
    public var logger: Logger { graph.logger }

    public init(photos: [String] = ["a", "b"]) async throws {
        let home = directory.path
        let environment = ["HOME": home]
        let config = try DaemonConfig.load(file: nil, environment: environment)
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
        graph.http.shutdownAll()
        try? graph.eventLoops.syncShutdownGracefully()
    }

    /// Runs `body` with a typed client on a connection of its own.
    public func client<T: Sendable>(_ body: @Sendable (SplashClient) async throws -> T) async throws -> T {
        try await InProcessConnection.with(router: router) { connection in try await body(SplashClient(connection: connection)) }
    }

    /// Signs the state in as `userId`, as the account capability would after a sign-in.
    public func signIn(_ userId: String = "u1") {
        state.setAccount(AccountStatus(state: .signedIn, userId: userId))
    }
}
