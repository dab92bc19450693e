#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// The one fixture of the tests that meet a real daemon. A test runs inside
/// `SplashdFixture.run { fixture in … }`; what it starts through the fixture — daemons, child
/// processes, directories, and what each area's extension adds (an in-process control server) — is
/// cleaned up last-in-first-out when the body ends, whether it returned or threw, so a failed
/// expectation never leaks a daemon into the next test.
public final class SplashdFixture: Sendable {
    /// The suite's devstack, when it has one (`Devstack.current`).
    public let devstack: Devstack?
    private let cleanups = Mutex<[@Sendable () async -> Void]>([])
    /// What each daemon started said, for a body that throws: its log is gone with its directory after.
    private let logs = Mutex<[@Sendable () -> String]>([])

    private init(devstack: Devstack?) {
        self.devstack = devstack
    }

    public static func run<T: Sendable>(
        devstack: Devstack? = Devstack.current, _ body: (SplashdFixture) async throws -> T
    ) async throws -> T {
        let fixture = SplashdFixture(devstack: devstack)
        let result: T
        do {
            result = try await body(fixture)
        } catch {
            for log in fixture.logs.withLock({ $0 }) { print(log()) }
            await fixture.cleanUp()
            throw error
        }
        await fixture.cleanUp()
        return result
    }

    /// Runs `action` when the test ends, before everything registered earlier.
    public func onCleanup(_ action: @escaping @Sendable () async -> Void) {
        cleanups.withLock { $0.append(action) }
    }

    /// A new directory, removed when the test ends.
    public func directory() -> String {
        let directory = TemporaryDirectory()
        onCleanup { withExtendedLifetime(directory) {} }
        return directory.path
    }

    /// Starts splashd (see `Splashd.Options`) and waits until its socket answers.
    public func splashd(_ options: Splashd.Options = .init()) async throws -> Splashd {
        let devstack = options.devstack ?? self.devstack
        if devstack == nil, options.sources || options.signsUp {
            throw DevstackError.missing("a daemon with photo sources or a signed-up account needs a devstack (the suite's .devstack trait)")
        }
        let daemon = try await Splashd.start(options, devstack: devstack, directory: options.directory ?? directory())
        onCleanup { await daemon.stop() }
        logs.withLock { $0.append { "splashd \(daemon.process.socketPath) said, to the end:\n" + daemon.process.stderr.split(separator: "\n").suffix(300).joined(separator: "\n") } }
        return daemon
    }

    /// The bare binary as a child process, for tests of the process itself (signals, exit codes,
    /// notify messages); SIGKILLed at the end if it is still running.
    public func process(
        directory: String? = nil, arguments: [String] = [], environment: [String: String] = [:], withNotifySocket: Bool = true,
        executable: String = DaemonProcess.splashdPath, launcher: [String] = []
    ) throws -> DaemonProcess {
        let process = try DaemonProcess(
            directory: directory ?? self.directory(), arguments: arguments, environment: environment, withNotifySocket: withNotifySocket,
            executable: executable, launcher: launcher)
        onCleanup { if process.isRunning { await process.kill9() } }
        return process
    }

    private func cleanUp() async {
        while let action = cleanups.withLock({ $0.popLast() }) {
            await action()
        }
    }
}
