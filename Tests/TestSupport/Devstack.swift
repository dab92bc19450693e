#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP
import Testing

/// A devstack instance of this test run's own (`DEVSTACK_STATE_DIR` unique), brought up once for the
/// integration suite by `DevstackTrait` and taken down after it. Missing devstack is a failure, not a
/// skip: these tests are the Account capability's proof.
public struct Devstack: Sendable {
    public let stateDir: String
    public let env: [String: String]

    public var backendURL: String { env["SPLASHD_BACKEND_URL"] ?? "" }
    public var anonKey: String { env["SPLASHD_ANON_KEY"] ?? "" }
    public var controlURL: String { env["DEVSTACK_URL"] ?? "" }

    /// What a daemon needs to reach this instance.
    public var daemonEnvironment: [String: String] {
        ["SPLASHD_BACKEND_URL": backendURL, "SPLASHD_ANON_KEY": anonKey]
    }

    @TaskLocal public static var current: Devstack?

    public static func require() throws -> Devstack {
        try #require(current, "the suite needs the .devstack trait")
    }

    public static var script: String {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("devstack/devstack").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return "devstack/devstack"
    }

    /// The network namespace this instance runs in (nil: the test's own).
    public var namespace: String?

    public static func up(namespace: String? = nil, host: String? = nil, photos: Int = 20) async throws -> Devstack {
        let script = Self.script
        guard FileManager.default.isExecutableFile(atPath: script) else {
            throw DevstackError.missing("devstack/devstack not found above \(#filePath); the integration tests need it")
        }
        let stateDir = "/tmp/splashd-devstack-test-\(UUID().uuidString.prefix(8))"
        let output = try await run(script, "up", stateDir: stateDir, namespace: namespace, host: host, photos: photos)
        var env: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            env[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        guard env["SPLASHD_BACKEND_URL"] != nil, env["DEVSTACK_URL"] != nil else {
            throw DevstackError.failed("devstack up printed no environment:\n\(output)")
        }
        return Devstack(stateDir: stateDir, env: env, namespace: namespace)
    }

    public func down() async {
        _ = try? await Self.run(Self.script, "down", stateDir: stateDir, namespace: namespace)
    }

    /// The backend crashes and comes back: the server is killed (-9) and started again on its port,
    /// with the same keys, Postgres and Storage (`devstack restart`).
    public func restart() async throws {
        try await Self.run(Self.script, "restart", stateDir: stateDir, namespace: namespace)
    }

    /// Runs the devstack command with its output in files, not pipes (the server that `up` starts must
    /// not hold a pipe open), without blocking a cooperative thread.
    @discardableResult
    public static func run(
        _ script: String, _ command: String, stateDir: String, namespace: String? = nil, host: String? = nil, photos: Int = 20
    ) async throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["DEVSTACK_STATE_DIR"] = stateDir
        environment["DEVSTACK_PHOTOS"] = String(photos)
        if let host { environment["DEVSTACK_HOST"] = host }
        let result = if let namespace {
            try await ChildProcess.run("/usr/sbin/ip", ["netns", "exec", namespace, script, command], environment: environment, timeout: .seconds(300))
        } else {
            try await ChildProcess.run(script, [command], environment: environment, timeout: .seconds(300))
        }
        guard result.status == 0 else {
            throw DevstackError.failed("devstack \(command) exited \(result.status):\n\(result.stderr)")
        }
        return result.stdout
    }

    // MARK: - /_devstack

    public func knobs(_ values: [String: Double]) async throws {
        _ = try await call("POST", "/_devstack/knobs", json: values)
    }

    /// Fault rules as devstack's JSON list (see devstack_server/control.py `Rule`).
    public func faults(_ rulesJSON: String) async throws {
        _ = try await send("POST", "/_devstack/faults", body: Data(rulesJSON.utf8))
    }

    public func clearFaults() async throws {
        _ = try await call("DELETE", "/_devstack/faults", json: nil as [String: String]?)
    }

    public func revokeSessions(email: String) async throws {
        _ = try await call("POST", "/_devstack/revoke_sessions", json: ["email": email])
    }

    /// Requests served for one route, e.g. "POST /auth/v1/token" (password and refresh grants alike).
    public func requests(_ route: String) async throws -> Int {
        try await counter("requests", route)
    }

    /// Requests served for one path, e.g. "GET /rest/v1/recent_signups" (where `requests` would count
    /// every table's "GET /rest/v1/{name}").
    public func requests(path: String) async throws -> Int {
        try await counter("requests_by_path", path)
    }

    /// Answers served with one HTTP status, every route's.
    public func answers(status: Int) async throws -> Int {
        try await counter("status", String(status))
    }

    /// The answers with a body served for one path, e.g. "GET /rest/v1/likes", and their bodies' bytes (an
    /// empty page is `[]`), read together: a request still being answered is in neither.
    public func served(path: String) async throws -> (answers: Int, bytes: Int) {
        let data = try await call("GET", "/_devstack/counters", json: nil as [String: String]?)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        func count(_ group: String) -> Int { ((object?[group] as? [String: Any])?[path] as? Int) ?? 0 }
        return (count("answered_by_path"), count("bytes_served_by_path"))
    }

    private func counter(_ group: String, _ key: String) async throws -> Int {
        let data = try await call("GET", "/_devstack/counters", json: nil as [String: String]?)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return ((object?[group] as? [String: Any])?[key] as? Int) ?? 0
    }

    /// Runs SQL on devstack's Postgres as its superuser (psql); what it printed, unaligned. For a test that
    /// changes what the server holds behind a daemon's back, or the server's own rules.
    @discardableResult
    public func adminSQL(_ sql: String) async throws -> String {
        guard let url = env["DEVSTACK_DATABASE_URL"] else { throw DevstackError.failed("devstack printed no DEVSTACK_DATABASE_URL") }
        let result = try await ChildProcess.run("/usr/bin/psql", [url, "-v", "ON_ERROR_STOP=1", "-Atc", sql])
        guard result.status == 0 else { throw DevstackError.failed("psql exited \(result.status): \(result.stderr)") }
        return result.stdout
    }

    /// Reads `/rest/v1/<path>` as the service role (bypassing RLS): what the server really holds.
    public func serviceRead(_ pathAndQuery: String) async throws -> [[String: Any]] {
        let key = env["DEVSTACK_SERVICE_ROLE_KEY"] ?? ""
        let response = try await http.send(HTTPRequest(
            method: "GET", url: backendURL + "/rest/v1/" + pathAndQuery,
            headers: [("apikey", key), ("Authorization", "Bearer \(key)")], timeout: .seconds(10)))
        guard response.isSuccess else {
            throw DevstackError.failed("GET \(pathAndQuery): HTTP \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]) ?? []
    }

    private func call<T: Encodable>(_ method: String, _ path: String, json: T?) async throws -> Data {
        try await send(method, path, body: try json.map { try JSONEncoder().encode($0) })
    }

    private static let http = try! HTTPClient(configuration: .init(version: "test"))

    /// A client that may speak plain http to this instance's host, which is not loopback when the
    /// instance runs in a test network namespace.
    private var http: HTTPClient {
        guard namespace != nil, let host = URL(string: backendURL)?.host else { return Self.http }
        var configuration = HTTPClient.Configuration(version: "test")
        configuration.insecureHTTPHosts = [host]
        return (try? HTTPClient(configuration: configuration)) ?? Self.http
    }

    private func send(_ method: String, _ path: String, body: Data?) async throws -> Data {
        let response = try await http.send(HTTPRequest(
            method: method, url: controlURL + path, headers: [("Content-Type", "application/json")], body: body.map(Array.init),
            timeout: .seconds(10)))
        guard response.isSuccess else {
            throw DevstackError.failed("\(method) \(path): HTTP \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return Data(response.body)
    }
}

public enum DevstackError: Error, CustomStringConvertible {
    case missing(String)
    case failed(String)

    public var description: String {
        switch self {
        case .missing(let text), .failed(let text): text
        }
    }
}

/// Brings devstack up around a suite (once, not per test) and down after it.
public struct DevstackTrait: SuiteTrait, TestScoping {
    /// The size of the seeded photo catalogue.
    public var photos = 20
    public init(photos: Int = 20) { self.photos = photos }
    public var isRecursive: Bool { false }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let devstack = try await Devstack.up(photos: photos)
        do {
            try await Devstack.$current.withValue(devstack) {
                try await function()
            }
        } catch {
            await devstack.down()
            throw error
        }
        await devstack.down()
    }
}

extension Trait where Self == DevstackTrait {
    public static var devstack: Self { DevstackTrait() }
    public static func devstack(photos: Int) -> Self { DevstackTrait(photos: photos) }
}
