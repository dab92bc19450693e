#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// SIGTERM, SIGINT and SIGHUP as async streams, delivered through a self-pipe.
///
/// Why not dispatch signal sources: on Linux they block the signal only on libdispatch's own thread,
/// so a signal the kernel hands to another thread still takes its default action and kills the
/// daemon — a race seen in tests. A `sigaction` handler runs on whichever thread receives the
/// signal, and all it does is write one byte (async-signal-safe) to a pipe that a dedicated thread
/// reads.
public final class SignalWatcher: Sendable {
    public let terminations: AsyncStream<Int32>
    public let reloads: AsyncStream<Void>
    private let terminationContinuation: AsyncStream<Int32>.Continuation
    private let reloadContinuation: AsyncStream<Void>.Continuation

    /// The write end of the pipe, read by the handler. A C signal handler cannot capture context, so
    /// this one value is process-global; it is set once before any handler is installed.
    nonisolated(unsafe) private static var writeFD: Int32 = -1
    private static let installed = Mutex(false)

    /// Installs the handlers. Call once, before the control socket listens.
    public init() {
        (terminations, terminationContinuation) = AsyncStream.makeStream(of: Int32.self)
        (reloads, reloadContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let alreadyInstalled = Self.installed.withLock { installed in defer { installed = true }; return installed }
        precondition(!alreadyInstalled, "SignalWatcher is installed once per process")
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { fatalError("pipe: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        Self.writeFD = fds[1]
        for signal in [SIGTERM, SIGINT, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(SignalWatcher.writeFD, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signal, &action, nil)
        }
        let readFD = fds[0]
        let terminations = terminationContinuation
        let reloads = reloadContinuation
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let n = read(readFD, &byte, 1)
                if n < 0 && errno == EINTR { continue }
                guard n == 1 else { return }
                if Int32(byte) == SIGHUP { reloads.yield() } else { terminations.yield(Int32(byte)) }
            }
        }
    }
}
