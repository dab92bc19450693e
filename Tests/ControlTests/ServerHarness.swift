import Control
@testable import Daemon
import DaemonTestSupport
import Foundation
import Library
import Logging
import NIOPosix
import Shared
import SplashClient
import Store
import TestSupport

extension SplashdFixture {
    /// A real control server on a real Unix socket in a directory of the test's, with the daemon's own
    /// routes over a real store (or the test's own router); stopped when the test ends.
    func controlServer(
        router: Router? = nil, configure: (inout ControlServer.Configuration) -> Void = { _ in }
    ) async throws -> ServerHarness {
        let harness = try await ServerHarness(directory: directory(), router: router, configure: configure)
        onCleanup { await harness.stop() }
        return harness
    }
}

/// The control server `SplashdFixture.controlServer` runs: the transport over the daemon's own graph
/// (`InProcessDaemon`: every route, its state and store, its clock a test clock), or over a router of
/// the test's, on a socket in the test's directory.
final class ServerHarness: Sendable {
    let directory: String
    let socketPath: String
    let daemon: InProcessDaemon
    let server: ControlServer
    let task: Task<Void, any Error>
    var state: DaemonState { daemon.state }

    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    init(directory: String, router: Router?, configure: (inout ControlServer.Configuration) -> Void) async throws {
        self.directory = directory
        socketPath = directory + "/run/control.sock"
        daemon = try await InProcessDaemon(photos: [])
        var configuration = ControlServer.Configuration(socket: .path(socketPath))
        configure(&configuration)
        server = ControlServer(configuration: configuration, router: router ?? daemon.router, logger: daemon.logger, group: Self.group)
        let server = self.server
        let task = Task { try await server.run() }
        self.task = task
        do {
            try await server.waitUntilListening()
        } catch {
            task.cancel()
            throw error
        }
    }

    /// Cancels the server and waits for it to end (again: nothing more happens).
    func stop() async {
        task.cancel()
        _ = await task.result
    }

    func client() throws -> SplashClient {
        try SplashClient.connect(socketPath: socketPath)
    }

    func raw() throws -> UnixSocketConnection {
        try UnixSocketConnection(path: socketPath)
    }
}

extension UnixSocketConnection {
    /// Sends one line and decodes the single answer as a generic JSON object.
    func exchange(_ line: String) async throws -> [String: Any]? {
        try await write(Data(line.utf8))
        guard let answer = try await read() else { return nil }
        return try JSONSerialization.jsonObject(with: answer) as? [String: Any]
    }

    func exchange(bytes: [UInt8]) async throws -> [String: Any]? {
        try await write(Data(bytes))
        guard let answer = try await read() else { return nil }
        return try JSONSerialization.jsonObject(with: answer) as? [String: Any]
    }
}

extension Dictionary where Key == String, Value == Any {
    var errorCode: Int? { (self["error"] as? [String: Any])?["code"] as? Int }
    var errorKind: String? { ((self["error"] as? [String: Any])?["data"] as? [String: Any])?["kind"] as? String }
    var errorMessage: String? { (self["error"] as? [String: Any])?["message"] as? String }
    var hasNullID: Bool { self["id"] is NSNull }
}
