#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Shared
import Synchronization

/// A connection to the daemon's control socket. Reads and writes block on a private serial dispatch
/// queue, never on a thread of Swift's cooperative pool, so many connections in one process (tests,
/// benchmarks) cannot starve the tasks that serve them.
public final class UnixSocketConnection: RPCConnection {
    private let fd: Int32
    private let queue = DispatchQueue(label: "splashd.client.socket")
    private let buffer = Mutex<[UInt8]>([])
    private let closed = Atomic<Bool>(false)
    public let maximumLineBytes: Int

    public init(path: String, maximumLineBytes: Int = 64 << 20) throws(ClientError) {
        self.maximumLineBytes = maximumLineBytes
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .invalidSocketPath(path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .cannotConnect(path, String(cString: strerror(errno))) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result != 0 {
            let code = errno
            Glibc.close(fd)
            // A throwing init still runs deinit once every property is set: mark the descriptor closed
            // so it is not closed twice (by then its number may belong to another connection).
            closed.store(true, ordering: .relaxed)
            switch code {
            case ENOENT, ECONNREFUSED: throw .notRunning(path)
            case EACCES, EPERM: throw .permissionDenied(path)
            default: throw .cannotConnect(path, String(cString: strerror(code)))
            }
        }
    }

    deinit {
        if !closed.load(ordering: .relaxed) { Glibc.close(fd) }
    }

    public func write(_ line: Data) async throws {
        var framed = [UInt8](line)
        framed.append(UInt8(ascii: "\n"))
        let bytes = framed
        let fd = self.fd
        try await onQueue { () throws(ClientError) in
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ClientError.connectionLost(String(cString: strerror(errno)))
                }
                offset += n
            }
        }
    }

    /// Not on the queue: a read blocked there is waiting for the answer this message may hurry. A
    /// line this short goes into the socket's buffer whole, and no other write is under way meanwhile
    /// (a request is written whole before its answer is read).
    public func writeWhileReading(_ line: Data) {
        guard !closed.load(ordering: .relaxed) else { return }
        var framed = [UInt8](line)
        framed.append(UInt8(ascii: "\n"))
        var offset = 0
        while offset < framed.count {
            let n = framed.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }

    public func read() async throws -> Data? {
        let fd = self.fd
        return try await onQueue { () throws(ClientError) -> Data? in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                if let line = self.takeLine() { return line }
                let n = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
                if n == 0 {
                    // A last line without its newline still counts.
                    let rest = self.buffer.withLock { buffer in defer { buffer = [] }; return buffer }
                    return rest.isEmpty ? nil : Data(rest)
                }
                if n < 0 {
                    if errno == EINTR { continue }
                    if self.closed.load(ordering: .relaxed) { return nil }
                    throw ClientError.connectionLost(String(cString: strerror(errno)))
                }
                let tooLong = self.buffer.withLock { buffer in
                    buffer.append(contentsOf: chunk[0..<n])
                    return buffer.count > self.maximumLineBytes && !buffer.contains(UInt8(ascii: "\n"))
                }
                if tooLong { throw ClientError.protocolError("the daemon sent a line over \(self.maximumLineBytes) bytes") }
            }
        }
    }

    private func takeLine() -> Data? {
        buffer.withLock { buffer in
            guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            let line = Data(buffer[..<newline])
            buffer.removeSubrange(...newline)
            return line
        }
    }

    public func close() async {
        if !closed.exchange(true, ordering: .relaxed) {
            shutdown(fd, Int32(SHUT_RDWR))  // wakes a read blocked on the queue
            queue.async { Glibc.close(self.fd) }
        }
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws(ClientError) -> T) async throws(ClientError) -> T {
        let result: Result<T, ClientError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(ClientError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
