#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shared
import SplashClient
import Testing
import TestSupport

/// The real splashd binary under a notify socket that plays systemd: READY, STATUS, WATCHDOG,
/// RELOADING, STOPPING, exit codes.
@Suite(.serialized) struct LifecycleTests {
    @Test func readyOnceListeningThenStatusAndGracefulStop() async throws {
        let dir = TemporaryDirectory()
        try await SplashdFixture.run { fixture in
            let daemon = try fixture.process(directory: dir.path)
            let notify = try #require(daemon.notify)
            let ready = try #require(await notify.wait { $0.contains("READY=1") }, "no READY=1; stderr:\n\(daemon.stderr)")
            #expect(ready.contains("STATUS="))
            #expect(ready.contains("signed out"), "\(ready)")
            // READY=1 is sent only once the socket listens and the store is open.
            let client = try SplashClient.connect(socketPath: daemon.socketPath)
            let status = try await client.send(StatusRequest())
            #expect(status.pid == daemon.pid)
            #expect(status.directories.socket == daemon.socketPath)
            #expect(FileManager.default.fileExists(atPath: dir.path + "/state/splashd.sqlite"))
            await client.close()

            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0, "stderr:\n\(daemon.stderr)")
            #expect(await notify.wait { $0.contains("STOPPING=1") } != nil)
            #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "its own socket is removed on exit")
            #expect(daemon.stderr.contains("<5>splashd ready"), "stderr lines carry <N> priority prefixes when not a terminal")
        }
    }

    /// A client that stays connected (`splashctl watch` in a terminal, a desktop applet) must not hold
    /// the daemon up: SIGTERM ended the listener but waited for every open connection, so systemd's
    /// stop took TimeoutStopSec and ended in SIGKILL.
    @Test func openConnectionsDoNotHoldUpAStop() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try fixture.process()
            let watcher = try await daemon.waitUntilListening()
            _ = try await watcher.send(SubscribeRequest())
            let idle = try SplashClient.connect(socketPath: daemon.socketPath)
            _ = try await idle.send(PingRequest())

            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0, "stderr:\n\(daemon.stderr)")
            await watcher.close()
            await idle.close()
        }
    }

    @Test func sigintStopsGracefullyToo() async throws {
        let dir = TemporaryDirectory()
        try await SplashdFixture.run { fixture in
            let daemon = try fixture.process(directory: dir.path)
            _ = try await daemon.waitUntilListening()
            daemon.signal(SIGINT)
            let status = await daemon.waitForExit(timeout: .seconds(5))
            #expect(status == 0, "exit \(String(describing: status)); stderr:\n\(daemon.stderr)")
        }
    }

    @Test func watchdogPingsAtHalfTheInterval() async throws {
        let dir = TemporaryDirectory()
        try await SplashdFixture.run { fixture in
            let daemon = try fixture.process(directory: dir.path, environment: ["WATCHDOG_USEC": "400000"])
            // sd_watchdog_enabled needs WATCHDOG_PID to be the daemon's own pid, or unset.
            let notify = try #require(daemon.notify)
            #expect(await notify.wait { $0.contains("READY=1") } != nil)
            try await Task.sleep(for: .seconds(2))
            let pings = notify.count { $0 == "WATCHDOG=1" }
            #expect((4...14).contains(pings), "expected about 10 pings in 2 s at 200 ms, got \(pings)")
            // A stopped process sends nothing: the watchdog would fire.
            daemon.signal(SIGSTOP)
            let before = notify.count { $0 == "WATCHDOG=1" }
            try await Task.sleep(for: .seconds(1))
            #expect(notify.count { $0 == "WATCHDOG=1" } <= before + 1)
            daemon.signal(SIGCONT)
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit() == 0)
        }
    }

    @Test func noWatchdogNoPings() async throws {
        let dir = TemporaryDirectory()
        try await SplashdFixture.run { fixture in
            let daemon = try fixture.process(directory: dir.path)
            let notify = try #require(daemon.notify)
            #expect(await notify.wait { $0.contains("READY=1") } != nil)
            try await Task.sleep(for: .seconds(1))
            #expect(notify.count { $0 == "WATCHDOG=1" } == 0)
        }
    }

    @Test func sighupReloadsAndABrokenConfigIsKept() async throws {
        let dir = TemporaryDirectory()
        let config = dir.file("config.toml")
        try "[log]\nlevel = \"info\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        try await SplashdFixture.run { fixture in
            let daemon = try fixture.process(directory: dir.path, arguments: ["--config", config])
            let notify = try #require(daemon.notify)
            #expect(await notify.wait { $0.contains("READY=1") } != nil)

            try "[log]\nlevel = \"debug\"\n".write(toFile: config, atomically: true, encoding: .utf8)
            daemon.signal(SIGHUP)
            let reloading = try #require(await notify.wait { $0.contains("RELOADING=1") })
            #expect(reloading.contains("MONOTONIC_USEC="))
            #expect(await notify.wait { _ in notify.count { $0.contains("READY=1") } >= 2 } != nil)
            #expect(await eventually(within: .seconds(10), every: .milliseconds(25)) { daemon.stderr.contains("configuration reloaded") && daemon.stderr.contains("log.level info → debug") })

            try "[log]\nlevel = = nope\n".write(toFile: config, atomically: true, encoding: .utf8)
            daemon.signal(SIGHUP)
            #expect(await eventually(within: .seconds(10), every: .milliseconds(25)) { daemon.stderr.contains("configuration not reloaded") }, "stderr:\n\(daemon.stderr)")
            #expect(daemon.stderr.contains("config.toml:2:"), "the error names file and line")
            #expect(await notify.wait { _ in notify.count { $0.contains("READY=1") } >= 3 } != nil)
            #expect(daemon.isRunning)
            let client = try SplashClient.connect(socketPath: daemon.socketPath)
            #expect(try await client.send(PingRequest()).pong)
            await client.close()
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit() == 0)
        }
    }

    @Test func aConfigThatDoesNotParseAtStartExits78() async throws {
        let dir = TemporaryDirectory()
        let config = dir.file("config.toml")
        try "[backend]\nurl = \"https://x.supabase.co\"\nsurprise = 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        try await SplashdFixture.run { fixture in
            let daemon = try fixture.process(directory: dir.path, arguments: ["--config", config])
            #expect(await daemon.waitForExit() == 78)
            #expect(daemon.stderr.contains("config.toml:3: unknown key 'backend.surprise'"), "\(daemon.stderr)")
            #expect(daemon.notify?.count { $0.contains("READY=1") } == 0)
        }
    }

    @Test func checkConfigExplainsEveryError() async throws {
        let dir = TemporaryDirectory()
        let config = dir.file("config.toml")
        try "[control]\nmax_connections = 0\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try await run(DaemonProcess.splashdPath, ["--check-config", "--config", config])
        #expect(result.status == 78)
        #expect(result.stderr.contains("config.toml:2: control.max_connections must be an integer from 1 to 100000"), "\(result.stderr)")
        try "[control]\nmax_connections = 10\n".write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try await run(DaemonProcess.splashdPath, ["--check-config", "--config", config]).status == 0)
    }

    @Test func aSecondDaemonOnTheSameSocketRefusesAndTheFirstKeepsRunning() async throws {
        let dir = TemporaryDirectory()
        try await SplashdFixture.run { fixture in
            let first = try fixture.process(directory: dir.path)
            _ = try await first.waitUntilListening()
            let second = try fixture.process(directory: dir.path + "/second", arguments: ["--socket", first.socketPath])
            #expect(await second.waitForExit() == 1)
            #expect(second.stderr.contains("another splashd is already listening"), "\(second.stderr)")
            let client = try SplashClient.connect(socketPath: first.socketPath)
            #expect(try await client.send(PingRequest()).pong)
            await client.close()
        }
    }

    @Test func socketActivationUsesThePassedSocket() async throws {
        let dir = TemporaryDirectory()
        let socket = dir.file("activated.sock")
        // systemd-socket-activate binds and listens, then starts splashd on the first connection with
        // LISTEN_FDS=1, exactly as splashd.socket does.
        try await SplashdFixture.run { fixture in
            let daemon = try fixture.process(
                directory: dir.path, launcher: ["/usr/bin/systemd-socket-activate", "-l", socket, "-E", "NOTIFY_SOCKET"])
            try await Task.sleep(for: .milliseconds(300))
            let client = try await connect(socket)
            let status = try await client.send(StatusRequest())
            #expect(status.pid == daemon.pid, "systemd-socket-activate execs splashd in place")
            await client.close()
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit() == 0)
            #expect(FileManager.default.fileExists(atPath: socket), "a socket passed by systemd is not ours to remove")
        }
    }

    /// The gallery's sockets by socket activation, told from the control socket by their name
    /// ("web", as splashd-web.socket names them): served instead of the port the config names.
    @Test func theGallerysSocketsComeFromSocketActivationByName() async throws {
        let dir = TemporaryDirectory()
        let socket = dir.file("activated.sock")
        let port = try Self.freePort()
        try await SplashdFixture.run { fixture in
            let daemon = try fixture.process(
                directory: dir.path,
                launcher: ["/usr/bin/systemd-socket-activate", "-l", socket, "-l", "127.0.0.1:\(port)", "--fdname=control:web", "-E", "NOTIFY_SOCKET"])
            try await Task.sleep(for: .milliseconds(300))
            let client = try await connect(socket)
            let opened = try await client.send(WebOpenRequest())
            #expect(opened.url.hasPrefix("http://127.0.0.1:\(port)/?token="), "\(opened.url)")
            let answer = try await run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/"])
            #expect(answer.stdout == "401", "the gallery answers on the passed socket: \(answer)")
            await client.close()
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit() == 0)
        }
    }

    /// A TCP port nobody listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private func connect(_ path: String) async throws -> SplashClient {
        for _ in 0..<200 {
            if let client = try? SplashClient.connect(socketPath: path) { return client }
            try await Task.sleep(for: .milliseconds(25))
        }
        return try SplashClient.connect(socketPath: path)
    }
}


struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a program to completion without blocking a cooperative thread.
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: String? = nil) async throws -> ProcessResult {
    let result = try await ChildProcess.run(executable, arguments, environment: environment, stdin: stdin)
    return ProcessResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
}
