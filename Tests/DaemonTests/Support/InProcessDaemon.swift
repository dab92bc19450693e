import Control
@testable import Daemon
import Foundation
import GRDB
import Library
import Logging
import Shared
import SplashClient
import Store
import TestSupport

/// The daemon's own router over a real Store in a directory of the test's, reached through
/// `InProcessConnection` exactly as a socket client would: no process, no socket, no network. The
/// store holds a photo `unsplash:<id>` ("Photo <id>") for each id given.
struct InProcessDaemon {
    let directory = TemporaryDirectory()
    let store: Store
    let state: DaemonState
    let router: Router

    init(photos: [String] = ["a", "b"]) throws {
        store = try Store(path: directory.file("s.sqlite"))
        try store.write { db in
            for id in photos { try PhotoRecord(source: .unsplash, remoteId: id, title: "Photo \(id)", fetchedAt: Date()).insert(db) }
        }
        state = DaemonState(bus: EventBus(), directories: DaemonStatus.example.directories)
        let library = PhotoLibrary(store: store)
        // As the daemon does: the counts in status follow every commit that moves them.
        LibraryCounter(state: state, library: library, logger: Logger(label: "test")).observeStore()
        router = Routes.make(state: state, library: library, logger: Logger(label: "test"))
    }

    /// Runs `body` with a typed client on a connection of its own.
    func client<T: Sendable>(_ body: @Sendable (SplashClient) async throws -> T) async throws -> T {
        try await InProcessConnection.with(router: router) { connection in try await body(SplashClient(connection: connection)) }
    }

    /// Signs the state in as `userId`, as the account capability would after a sign-in.
    func signIn(_ userId: String = "u1") {
        state.setAccount(AccountStatus(state: .signedIn, userId: userId))
    }
}
