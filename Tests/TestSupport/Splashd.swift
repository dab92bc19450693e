#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shared
import SplashClient
import Synchronization
import Testing

/// A real splashd started by a `SplashdFixture`: the binary as a child process in a directory of the
/// test's, a client connected to its socket, and the account it was given. Stopped by the fixture
/// when the test ends, or earlier by `stop()` (a test that restarts it in the same directory).
public final class Splashd: Sendable {
    public struct Options: Sendable {
        /// The account the daemon starts with.
        public enum Account: Sendable {
            case none
            /// A fresh account signed up before the test sees the daemon.
            case signUp
            /// An account already signed up (by another daemon, or a restart's session file).
            case existing(email: String)
        }

        /// Where it lives (a restart passes the earlier daemon's); nil: a new directory of the fixture's.
        public var directory: String?
        /// The devstack to point at; nil: the fixture's.
        public var devstack: Devstack?
        /// The devstack's backend (when there is a devstack).
        public var backend = true
        /// devstack's Unsplash and NASA stand-ins as the photo sources.
        public var sources = false
        public var account = Account.none
        /// Written to `<directory>/config.toml` and passed with `--config`.
        public var config: String?
        public var arguments: [String] = []
        /// Added over the backend's and the sources' variables.
        public var environment: [String: String] = [:]
        /// A notify socket playing systemd's part (`process.notify`). Two daemons started one after the
        /// other in one directory cannot both have one.
        public var notify = false
        /// A command the daemon runs under (`ip netns exec NS`).
        public var launcher: [String] = []

        var signsUp: Bool {
            if case .signUp = account { true } else { false }
        }

        public init(
            directory: String? = nil, devstack: Devstack? = nil, backend: Bool = true, sources: Bool = false, account: Account = .none,
            config: String? = nil, arguments: [String] = [], environment: [String: String] = [:], notify: Bool = false, launcher: [String] = []
        ) {
            self.directory = directory
            self.devstack = devstack
            self.launcher = launcher
            self.backend = backend
            self.sources = sources
            self.account = account
            self.config = config
            self.arguments = arguments
            self.environment = environment
            self.notify = notify
        }
    }

    /// The password of every account `.signUp` makes.
    public static let password = "correct horse battery"

    public let process: DaemonProcess
    public let client: SplashClient
    /// The devstack it was pointed at (nil: none).
    public let devstack: Devstack?
    /// The account it was given (`.signUp` or `.existing`), else nil.
    public let email: String?
    private let stopped = Mutex(false)

    public var directory: String { process.directory }
    public var stateDir: String { directory + "/state" }
    public var databasePath: String { stateDir + "/splashd.sqlite" }

    init(process: DaemonProcess, client: SplashClient, devstack: Devstack?, email: String?) {
        self.process = process
        self.client = client
        self.devstack = devstack
        self.email = email
    }

    static func start(_ options: Options, devstack: Devstack?, directory: String) async throws -> Splashd {
        var environment: [String: String] = [:]
        if let devstack {
            if options.backend { environment.merge(devstack.daemonEnvironment) { _, new in new } }
            if options.sources {
                for key in ["SPLASHD_UNSPLASH_API_URL", "SPLASHD_UNSPLASH_ACCESS_KEY", "SPLASHD_NASA_API_URL"] { environment[key] = devstack.env[key] }
                // Google Photos is a source too: devstack's Desktop client and stand-ins.
                for (key, value) in devstack.env where key.hasPrefix("SPLASHD_GOOGLE_") { environment[key] = value }
            }
        }
        environment.merge(options.environment) { _, new in new }
        var arguments = options.arguments
        if let config = options.config {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try config.write(toFile: directory + "/config.toml", atomically: true, encoding: .utf8)
            arguments += ["--config", directory + "/config.toml"]
        }
        let process = try DaemonProcess(
            directory: directory, arguments: arguments, environment: environment, withNotifySocket: options.notify, launcher: options.launcher)
        let client: SplashClient
        do {
            client = try await process.waitUntilListening()
        } catch {
            await process.kill9()
            throw error
        }
        var email: String?
        switch options.account {
        case .none:
            break
        case .existing(let existing):
            email = existing
        case .signUp:
            let fresh = uniqueEmail("splashd")
            do {
                _ = try await client.send(SignupRequest(email: fresh, password: password, username: uniqueUsername()))
            } catch {
                await client.close()
                await process.kill9()
                throw error
            }
            email = fresh
        }
        return Splashd(process: process, client: client, devstack: devstack, email: email)
    }

    public func send<R: RPCRequest>(_ request: R) async throws -> R.Result {
        try await client.send(request)
    }

    /// The error an RPC answers with (fails the test if it succeeds).
    public func error<R: RPCRequest>(_ request: R, sourceLocation: SourceLocation = #_sourceLocation) async -> RPCError? {
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

    /// Waits until `condition` holds (the daemon acts on timers of its own), through `eventually`;
    /// records an issue naming `what` when it never does.
    public func wait(
        for what: String, tries: Int = 100, every interval: Duration = .milliseconds(100), sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () async throws -> Bool
    ) async throws {
        let held = try await eventually(tries: tries, every: interval, condition, until: { $0 })
        if !held { Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation) }
    }

    /// Runs splashctl against this daemon; exit status and output. Through `ChildProcess`
    /// (posix_spawn + waitpid): Foundation's Process lost exit statuses in this busy test process.
    public func ctl(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ChildProcess.run(
            DaemonProcess.splashctlPath, ["--socket", process.socketPath, "--no-color"] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"].merging(environment) { $1 }, stdin: stdin ?? "", timeout: .seconds(30))
    }

    /// SIGTERM and a clean exit (SIGKILL after 10 s). Once: the fixture's cleanup after an explicit
    /// stop does nothing.
    public func stop() async {
        guard stopped.withLock({ let was = $0; $0 = true; return !was }) else { return }
        await client.close()
        process.signal(SIGTERM)
        if await process.waitForExit(timeout: .seconds(10)) == nil { await process.kill9() }
    }

    /// SIGKILL, as a crash.
    public func kill9() async {
        guard stopped.withLock({ let was = $0; $0 = true; return !was }) else { return }
        await client.close()
        await process.kill9()
    }
}

/// A unique address per test, so tests share one devstack without meeting.
public func uniqueEmail(_ tag: String = "t") -> String {
    "\(tag)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
}

public func uniqueUsername(_ tag: String = "u") -> String {
    "\(tag)_\(UUID().uuidString.prefix(8).lowercased())"
}
