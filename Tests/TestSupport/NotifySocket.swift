#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// Plays systemd's side of sd_notify: a Unix datagram socket whose path goes into `NOTIFY_SOCKET`.
/// Every datagram the daemon sends is kept, in order, for the test to wait on.
public final class NotifySocket: Sendable {
    public let path: String
    private let fd: Int32
    private let log = MessageLog()

    final class MessageLog: Sendable {
        let messages = Mutex<[String]>([])
        let stopped = Atomic<Bool>(false)
    }

    public init(directory: String) throws {
        path = directory + "/notify.sock"
        let socketFD = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            close(socketFD)
            throw POSIXError(.EADDRINUSE)
        }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        fd = socketFD
        let log = self.log
        // A plain thread: the blocking recv must not occupy a cooperative thread the daemon-side
        // test code needs.
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 8192)
            while !log.stopped.load(ordering: .relaxed) {
                let n = buffer.withUnsafeMutableBytes { recv(socketFD, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    let message = String(decoding: buffer[0..<n], as: UTF8.self)
                    log.messages.withLock { $0.append(message) }
                }
            }
            close(socketFD)
        }
    }

    deinit {
        log.stopped.store(true, ordering: .relaxed)
        unlink(path)
    }

    public var all: [String] { log.messages.withLock { $0 } }

    /// Waits until a message satisfying `predicate` has arrived; returns it, or nil at the deadline.
    /// The messages are looked at once more at the deadline: a test task that resumed only after it (its
    /// threads busy) found nil although READY=1 had long arrived.
    public func wait(for timeout: Duration = .seconds(20), where predicate: (String) -> Bool) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = all.first(where: predicate) { return found }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return all.first(where: predicate)
    }

    public func count(where predicate: (String) -> Bool) -> Int { all.filter(predicate).count }
}
