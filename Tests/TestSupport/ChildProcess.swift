#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A child process for tests: `posix_spawn` and a `waitpid(WNOHANG)` poll.
///
/// Why not Foundation's `Process`: in a busy multi-threaded test process on Linux its exit
/// notification depends on SIGCHLD reaching the right thread, and it sometimes never comes (seen:
/// a zombie child while `terminationHandler` and `isRunning` waited forever). Polling `waitpid` cannot
/// miss an exit, and the polling sleeps never block a cooperative thread.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `executable` with `arguments`; stdout and stderr go to the given files (or /dev/null),
    /// stdin reads `stdinPath` (or /dev/null).
    public init(
        executable: String, arguments: [String], environment: [String: String],
        stdoutPath: String? = nil, stderrPath: String? = nil, stdinPath: String? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Children start with default signal handling and nothing blocked, whatever this process did.
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        pid = child
    }

    /// The exit status (or 128 + signal), once the child has ended; reaps it.
    public var exitStatus: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        let exited = raw & 0x7f == 0
        status = exited ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        return status
    }

    public var isRunning: Bool { exitStatus == nil }

    public func signal(_ number: Int32) {
        if isRunning { kill(pid, number) }
    }

    /// Waits for the exit; nil at the deadline.
    public func wait(timeout: Duration = .seconds(60)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = exitStatus { return status }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return exitStatus
    }

    /// Waits for a Foundation `Process` without trusting its exit notification: polls `waitpid`
    /// (Foundation may have reaped it already, which also means it ended). Bounded, so a test can fail
    /// but never hang.
    @discardableResult
    public static func reap(_ process: Process, timeout: Duration = .seconds(30)) -> Bool {
        let pid = process.processIdentifier
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result == -1 && errno == ECHILD) || !process.isRunning { return true }
            usleep(5_000)
        }
        return false
    }

    /// Runs a program to completion and returns its status and output.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: String? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)").path
        defer {
            for suffix in [".out", ".err", ".in"] { try? FileManager.default.removeItem(atPath: base + suffix) }
        }
        if let stdin { try stdin.write(toFile: base + ".in", atomically: true, encoding: .utf8) }
        let child = try ChildProcess(
            executable: executable, arguments: arguments, environment: environment ?? ProcessInfo.processInfo.environment,
            stdoutPath: base + ".out", stderrPath: base + ".err", stdinPath: stdin == nil ? nil : base + ".in")
        guard let status = await child.wait(timeout: timeout) else {
            child.signal(SIGKILL)
            _ = await child.wait(timeout: .seconds(5))
            throw POSIXError(.ETIMEDOUT)
        }
        return (status,
                (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? "",
                (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? "")
    }
}
