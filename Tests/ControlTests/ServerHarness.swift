import Control
@testable import Daemon
import Foundation
import Library
import Logging
import NIOPosix
import Shared
import SplashClient
import Store

/// A real control server on a real Unix socket in a temporary directory, with the daemon's own routes
/// over a real store. Stopped by cancelling its task.
final class ServerHarness: Sendable {
    let directory: String
    let socketPath: String
    let state: DaemonState
    let server: ControlServer
    let task: Task<Void, any Error>
    let store: Store

    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    init(configure: (inout ControlServer.Configuration) -> Void = { _ in }) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("splashd-ctl-\(UUID().uuidString.prefix(8))").path
        socketPath = directory + "/run/control.sock"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = try Store(path: directory + "/s.sqlite")
        state = DaemonState(
            bus: EventBus(),
            directories: Directories(state: directory, data: directory, cache: directory, runtime: directory + "/run", socket: socketPath))
        var configuration = ControlServer.Configuration(socket: .path(socketPath))
        configure(&configuration)
        let logger = Logger(label: "test")
        server = ControlServer(
            configuration: configuration,
            router: Routes.make(state: state, library: PhotoLibrary(store: store), logger: logger),
            logger: logger, group: Self.group)
        let server = self.server
        task = Task { try await server.run() }
        try await server.waitUntilListening()
    }

    func stop() async {
        task.cancel()
        _ = await task.result
        try? FileManager.default.removeItem(atPath: directory)
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
