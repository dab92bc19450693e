import Foundation
import HTTP
import Testing

/// A devstack instance of this test run's own (`DEVSTACK_STATE_DIR` unique), brought up once for the
/// integration suite by `DevstackTrait` and taken down after it. Missing devstack is a failure, not a
/// skip: these tests are the Account capability's proof.
struct Devstack: Sendable {
    let stateDir: String
    let env: [String: String]

    var backendURL: String { env["SPLASHD_BACKEND_URL"] ?? "" }
    var anonKey: String { env["SPLASHD_ANON_KEY"] ?? "" }
    var controlURL: String { env["DEVSTACK_URL"] ?? "" }

    /// What a daemon needs to reach this instance.
    var daemonEnvironment: [String: String] {
        ["SPLASHD_BACKEND_URL": backendURL, "SPLASHD_ANON_KEY": anonKey]
    }

    @TaskLocal static var current: Devstack?

    static func require() throws -> Devstack {
        try #require(current, "the suite needs the .devstack trait")
    }

    static var script: String {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("devstack/devstack").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return "devstack/devstack"
    }

    static func up() throws -> Devstack {
        let script = Self.script
        guard FileManager.default.isExecutableFile(atPath: script) else {
            throw DevstackError.missing("devstack/devstack not found above \(#filePath); the Account integration tests need it")
        }
        let stateDir = "/tmp/splashd-devstack-acct-\(UUID().uuidString.prefix(8))"
        let output = try run(script, "up", stateDir: stateDir)
        var env: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            env[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        guard env["SPLASHD_BACKEND_URL"] != nil, env["DEVSTACK_URL"] != nil else {
            throw DevstackError.failed("devstack up printed no environment:\n\(output)")
        }
        return Devstack(stateDir: stateDir, env: env)
    }

    func down() {
        _ = try? Self.run(Self.script, "down", stateDir: stateDir)
    }

    @discardableResult
    static func run(_ script: String, _ command: String, stateDir: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = [command]
        var environment = ProcessInfo.processInfo.environment
        environment["DEVSTACK_STATE_DIR"] = stateDir
        environment["DEVSTACK_PHOTOS"] = "20"
        process.environment = environment
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw DevstackError.failed("devstack \(command) exited \(process.terminationStatus):\n\(String(decoding: err, as: UTF8.self))")
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - /_devstack

    func knobs(_ values: [String: Double]) async throws {
        _ = try await call("POST", "/_devstack/knobs", json: values)
    }

    /// Fault rules as devstack's JSON list (see devstack_server/control.py `Rule`).
    func faults(_ rulesJSON: String) async throws {
        _ = try await send("POST", "/_devstack/faults", body: Data(rulesJSON.utf8))
    }

    func clearFaults() async throws {
        _ = try await call("DELETE", "/_devstack/faults", json: nil as [String: String]?)
    }

    func revokeSessions(email: String) async throws {
        _ = try await call("POST", "/_devstack/revoke_sessions", json: ["email": email])
    }

    /// Requests served for one route, e.g. "POST /auth/v1/token" (password and refresh grants alike).
    func requests(_ route: String) async throws -> Int {
        let data = try await call("GET", "/_devstack/counters", json: nil as [String: String]?)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return ((object?["requests"] as? [String: Any])?[route] as? Int) ?? 0
    }

    private func call<T: Encodable>(_ method: String, _ path: String, json: T?) async throws -> Data {
        try await send(method, path, body: try json.map { try JSONEncoder().encode($0) })
    }

    private static let http = try! HTTPClient(configuration: .init(version: "test"))

    private func send(_ method: String, _ path: String, body: Data?) async throws -> Data {
        let response = try await Self.http.send(HTTPRequest(
            method: method, url: controlURL + path, headers: [("Content-Type", "application/json")], body: body.map(Array.init),
            timeout: .seconds(10)))
        guard response.isSuccess else {
            throw DevstackError.failed("\(method) \(path): HTTP \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return Data(response.body)
    }
}

enum DevstackError: Error, CustomStringConvertible {
    case missing(String)
    case failed(String)

    var description: String {
        switch self {
        case .missing(let text), .failed(let text): text
        }
    }
}

/// Brings devstack up around a suite (once, not per test) and down after it.
struct DevstackTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let devstack = try Devstack.up()
        defer { devstack.down() }
        try await Devstack.$current.withValue(devstack) {
            try await function()
        }
    }
}

extension Trait where Self == DevstackTrait {
    static var devstack: Self { DevstackTrait() }
}
