#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SplashClient
import Synchronization

/// The real `splashd` binary as a child process, in its own temporary directories, with stderr kept
/// in a file. The binary is found next to the test bundle (`swift build` puts them together) unless
/// `SPLASHD_BIN` names it.
public final class DaemonProcess: Sendable {
    public let directory: String
    public let socketPath: String
    public let stderrPath: String
    public let notify: NotifySocket?
    private let process: ChildProcess

    public static var binDirectory: String {
        if let bin = ProcessInfo.processInfo.environment["SPLASHD_BIN"] { return (bin as NSString).deletingLastPathComponent }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("splashd").path) { return url.path }
        }
        let fallback = FileManager.default.currentDirectoryPath + "/.build/debug"
        return fallback
    }

    public static var splashdPath: String { binDirectory + "/splashd" }
    public static var splashctlPath: String { binDirectory + "/splashctl" }

    /// Starts splashd with `arguments` after the directory flags, `environment` added to a minimal one.
    public init(
        directory: String, arguments: [String] = [], environment: [String: String] = [:],
        withNotifySocket: Bool = true, executable: String = DaemonProcess.splashdPath, launcher: [String] = []
    ) throws {
        self.directory = directory
        socketPath = directory + "/run/control.sock"
        stderrPath = directory + "/stderr.log"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        notify = withNotifySocket ? try NotifySocket(directory: directory) : nil
        let flags = ["--state-dir", directory + "/state", "--data-dir", directory + "/data",
                     "--cache-dir", directory + "/cache", "--socket", socketPath, "--log-target", "stderr"]
        // The gallery on a port of its own (daemons of tests run side by side).
        var env = ["PATH": "/usr/bin:/bin", "HOME": directory, "LANG": "C.UTF-8", "SPLASHD_WEB_PORT": "0"]
        if let notify { env["NOTIFY_SOCKET"] = notify.path }
        env.merge(environment) { _, new in new }
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        if launcher.isEmpty {
            process = try ChildProcess(executable: executable, arguments: flags + arguments, environment: env, stderrPath: stderrPath)
        } else {
            process = try ChildProcess(
                executable: launcher[0], arguments: Array(launcher.dropFirst()) + [executable] + flags + arguments,
                environment: env, stderrPath: stderrPath)
        }
    }

    public var pid: Int32 { process.pid }
    public var isRunning: Bool { process.isRunning }
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    public func signal(_ number: Int32) {
        process.signal(number)
    }

    /// Waits for the process to exit, without blocking a cooperative thread; nil at the deadline.
    public func waitForExit(timeout: Duration = .seconds(20)) async -> Int32? {
        await process.wait(timeout: timeout)
    }

    /// Waits until the control socket answers a connection.
    public func waitUntilListening(timeout: Duration = .seconds(20)) async throws -> SplashClient {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let client = try? SplashClient.connect(socketPath: socketPath) { return client }
            if ContinuousClock.now > deadline || !process.isRunning {
                throw DaemonProcessError.notListening(stderr)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// SIGKILL and reap, for cleanup.
    public func kill9() async {
        process.signal(SIGKILL)
        _ = await waitForExit(timeout: .seconds(10))
    }
}

public enum DaemonProcessError: Error, CustomStringConvertible {
    case notListening(String)
    public var description: String {
        switch self {
        case .notListening(let stderr): "splashd did not start listening; its stderr:\n\(stderr)"
        }
    }
}
