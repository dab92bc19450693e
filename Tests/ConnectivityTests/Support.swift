import Clocks
import Foundation
import TestSupport
import HTTP
import Logging
import Shared
import Synchronization
import Testing

@testable import Connectivity

/// Fixtures/health_server.py on 127.0.0.1: the backend's health endpoint, with a status the test sets and a count
/// of the probes it received. It serves until its stdin closes, so it dies with the test process.
final class HealthServer: @unchecked Sendable {
    private(set) var port: Int
    private var server: FixtureServer?
    private let apiKey: String?
    private let control: HTTPClient

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/health_server.py").path

    init(apiKey: String? = nil) throws {
        self.apiKey = apiKey
        port = 0
        control = try HTTPClient(configuration: .init(version: "test"))
        try start()
    }

    deinit { stop() }

    var healthURL: String { "http://127.0.0.1:\(port)/auth/v1/health" }

    /// Starts the server, on the same port as before if it ran already.
    func start() throws {
        let server: FixtureServer
        do {
            server = try FixtureServer(script: Self.script, arguments: ["--port", String(port)] + (apiKey.map { ["--apikey", $0] } ?? []))
        } catch {
            throw ServerError.noPort
        }
        port = server.port
        self.server = server
    }

    /// Stops the server and waits until it is gone, so the port refuses connections.
    func stop() {
        server?.stop(wait: true)
        server = nil
    }

    func setStatus(_ status: Int) async throws {
        _ = try await control.send(HTTPRequest(url: "http://127.0.0.1:\(port)/_control?status=\(status)")).requireSuccess()
    }

    /// Health requests received by this server process.
    func healthRequests() async throws -> Int {
        let response = try await control.send(HTTPRequest(url: "http://127.0.0.1:\(port)/_stats")).requireSuccess()
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return object?["health"] as? Int ?? -1
    }

    enum ServerError: Error { case noPort }
}

/// Records what onChange reported.
final class ChangeRecorder: Sendable {
    private let changes = Mutex<[ConnectivityStatus]>([])

    var all: [ConnectivityStatus] { changes.withLock { $0 } }
    var states: [ConnectivityStatus.State] { all.map(\.state) }

    func record(_ status: ConnectivityStatus) { changes.withLock { $0.append(status) } }
}

/// A network namespace of the test's own, removed (with every interface in it) by `remove()` or deinit.
final class NetworkNamespace: @unchecked Sendable {
    let name: String
    private var removed = false

    init() throws {
        name = "splashd-conn-\(UInt32.random(in: 0...UInt32.max))"
        try Self.run(["netns", "add", name])
    }

    deinit { remove() }

    var path: String { "/run/netns/\(name)" }

    /// `ip -n NAME args...`: acts only inside the namespace.
    func ip(_ arguments: String...) throws { try Self.run(["-n", name] + arguments) }

    /// Several `ip` commands in one process (`ip -n NAME -batch FILE`), so they reach the kernel milliseconds apart
    /// however loaded the machine is.
    func ipBatch(_ commands: [String]) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("splashd-conn-\(UUID().uuidString).ip").path
        try commands.joined(separator: "\n").appending("\n").write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Self.run(["-n", name, "-batch", file])
    }

    func remove() {
        guard !removed else { return }
        removed = true
        try? Self.run(["netns", "del", name])
    }

    static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        let child = process
        ChildProcess.reap(child)
        // Foundation may not have noticed the exit (see ChildProcess); a failed ip shows in the tests anyway.
        if !child.isRunning, child.terminationStatus != 0 { throw CommandError.failed("ip " + arguments.joined(separator: " ")) }
    }

    enum CommandError: Error { case failed(String) }
}

/// Fast settings for tests: small debounce and backoff, short probe timeout.
func testConfiguration(_ url: String?, _ adjust: (inout ConnectivityMonitor.Configuration) -> Void = { _ in }) -> ConnectivityMonitor.Configuration {
    var configuration = ConnectivityMonitor.Configuration(healthURL: url)
    configuration.probeTimeout = .seconds(2)
    configuration.debounce = .milliseconds(50)
    configuration.minBackoff = .milliseconds(100)
    configuration.maxBackoff = .milliseconds(400)
    configuration.watchNetlink = false
    adjust(&configuration)
    return configuration
}

/// Runs a monitor for the duration of `body`, then cancels it and waits for `run()` to return.
func withMonitor<T>(
    _ configuration: ConnectivityMonitor.Configuration, recorder: ChangeRecorder = ChangeRecorder(),
    clock: some Clock<Duration> = ContinuousClock(), networkChanged: @escaping @Sendable () -> Void = {},
    _ body: (ConnectivityMonitor) async throws -> T
) async throws -> T {
    let http = try HTTPClient(configuration: .init(version: "test", connectTimeout: .seconds(2)))
    var logger = Logger(label: "test.connectivity")
    logger.logLevel = ProcessInfo.processInfo.environment["CONNECTIVITY_TEST_DEBUG"] == nil ? .critical : .debug
    let monitor = ConnectivityMonitor(
        configuration: configuration, http: http, clock: AnyClock(clock), logger: logger, networkChanged: networkChanged
    ) {
        recorder.record($0)
    }
    let running = Task { try await monitor.run() }
    defer { running.cancel() }
    let result = try await body(monitor)
    running.cancel()
    _ = await running.result
    return result
}

