#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shared
import SplashClient
import Testing
import TestSupport

/// The real splashd, pointed at a devstack, in a temporary directory of its own; and splashctl.
final class AccountDaemon: Sendable {
    let process: DaemonProcess
    let client: SplashClient

    var directory: String { process.directory }
    var stateDir: String { process.directory + "/state" }

    private init(process: DaemonProcess, client: SplashClient) {
        self.process = process
        self.client = client
    }

    /// Starts splashd in `directory` (a new one when nil) with the backend of `devstack`, or with
    /// `environment` when given.
    static func start(directory: String? = nil, environment: [String: String], notify: Bool = true) async throws -> AccountDaemon {
        let dir = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("splashd-acct-\(UUID().uuidString.prefix(8))").path
        let process = try DaemonProcess(directory: dir, arguments: ["--log-level", "debug"], environment: environment, withNotifySocket: notify)
        let client = try await process.waitUntilListening()
        return AccountDaemon(process: process, client: client)
    }

    static func start(devstack: Devstack, directory: String? = nil) async throws -> AccountDaemon {
        try await start(directory: directory, environment: devstack.daemonEnvironment)
    }

    /// Runs `body` with a daemon and stops it afterwards, whether `body` throws or not.
    static func run(
        devstack: Devstack? = nil, directory: String? = nil, environment: [String: String]? = nil, notify: Bool = true,
        _ body: (AccountDaemon) async throws -> Void
    ) async throws {
        let daemon = try await start(directory: directory, environment: environment ?? devstack?.daemonEnvironment ?? [:], notify: notify)
        do {
            try await body(daemon)
        } catch {
            await daemon.finish()
            throw error
        }
        await daemon.finish()
    }

    /// SIGTERM, and wait for a clean exit.
    func stop() async {
        await client.close()
        process.signal(SIGTERM)
        if await process.waitForExit(timeout: .seconds(10)) == nil { await process.kill9() }
    }

    /// Stops and removes the directory.
    func finish() async {
        await stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func send<R: RPCRequest>(_ request: R) async throws -> R.Result {
        try await client.send(request)
    }

    /// The error an RPC answers with (fails the test if it succeeds).
    func error<R: RPCRequest>(_ request: R, sourceLocation: SourceLocation = #_sourceLocation) async -> RPCError? {
        do {
            _ = try await client.send(request)
            Issue.record("\(R.method) succeeded but an error was expected", sourceLocation: sourceLocation)
            return nil
        } catch let error as RPCError {
            return error
        } catch {
            Issue.record("\(R.method) failed without an RPC error: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Polls `daemon.status`-like state until `condition` holds (the daemon acts on timers of its own).
    func wait(
        timeout: Duration = .seconds(10), for what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
    }

    /// Runs splashctl against this daemon; returns exit status and output. Through `ChildProcess`
    /// (posix_spawn + waitpid): Foundation's Process lost exit statuses in this busy test process.
    func ctl(_ arguments: [String], stdin: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess.run(
            DaemonProcess.splashctlPath, ["--socket", process.socketPath, "--no-color"] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"], stdin: stdin ?? "", timeout: .seconds(30))
    }
}

/// A unique address per test, so tests share one devstack without meeting.
func uniqueEmail(_ tag: String = "t") -> String {
    "\(tag)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
}

func uniqueUsername(_ tag: String = "u") -> String {
    "\(tag)_\(UUID().uuidString.prefix(8).lowercased())"
}
