import Foundation
import HTTP
import TestSupport

/// Runs Fixtures/server.py on 127.0.0.1 for one test. The script serves until its stdin closes, so it dies
/// with the test process even if `stop` is never reached.
final class TestServer: @unchecked Sendable {
    let port: Int
    let scheme: String
    private let server: FixtureServer

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/server.py").path

    init(tls: (cert: String, key: String)? = nil) throws {
        do {
            server = try FixtureServer(script: Self.script, arguments: tls.map { ["--cert", $0.cert, "--key", $0.key] } ?? [])
        } catch {
            throw TestServerError.noPort
        }
        port = server.port
        scheme = tls == nil ? "http" : "https"
    }

    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    func stop() {
        server.stop()
    }

    /// The server's counters (connections accepted, peak concurrency, Range headers seen).
    func stats(using client: HTTPClient) async throws -> [String: Any] {
        let response = try await client.send(HTTPRequest(url: url("/stats")))
        return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }
}

enum TestServerError: Error { case noPort }

/// Starts a server, runs `body`, stops the server whatever happens.
func withServer<T>(tls: (cert: String, key: String)? = nil, _ body: (TestServer) async throws -> T) async throws -> T {
    let server = try TestServer(tls: tls)
    defer { server.stop() }
    return try await body(server)
}

func makeClient(_ adjust: (inout HTTPClient.Configuration) -> Void = { _ in }) throws -> HTTPClient {
    var configuration = HTTPClient.Configuration(version: "1.2.3-test")
    adjust(&configuration)
    return try HTTPClient(configuration: configuration)
}

/// Expected file content served by /file, /truncated.
func fileBytes(_ size: Int) -> [UInt8] { (0..<size).map { UInt8(($0 * 7 + 3) % 251) } }

func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "splashd-http-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
