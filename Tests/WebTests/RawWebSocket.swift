#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Support

/// A WebSocket on a plain TCP socket, every byte the test's: the upgrade by hand, then frames written
/// without ever reading an answer, as a tab whose page is stuck. NIO's client would read ahead and
/// keep frames in its own buffers, which hides whether the server stopped reading.
final class RawWebSocket: Sendable {
    struct Refused: Error { let answer: String }

    let fd: Int32

    /// Connects to 127.0.0.1:`port` and upgrades `/rpc` with `headers`; the socket is non-blocking after.
    /// The upgrade's reads block: from a task, open one with `opened`.
    init(port: Int, headers: [(String, String)]) throws {
        fd = try RawHTTP.connect(port: port)
        var request = "GET /rpc HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        // The answer's head only: byte by byte, so that no frame after it is taken.
        var head = [UInt8]()
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]), read(fd, &byte, 1) == 1 { head.append(byte) }
        let answer = String(decoding: head, as: UTF8.self)
        // A refusal leaves the socket to deinit.
        guard answer.hasPrefix("HTTP/1.1 101") else { throw Refused(answer: answer) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Opens one on a thread of its own: blocked on a cooperative thread (two on this machine), the
    /// upgrade's reads could wait for a server that needs that thread, while another test holds the other.
    static func opened(port: Int, headers: [(String, String)]) async throws -> RawWebSocket {
        try await blockingWork { Result { try RawWebSocket(port: port, headers: headers) } }.get()
    }

    deinit { close(fd) }

    /// Client text frames (masked, as RFC 6455 asks of a client; a zero mask leaves the bytes as they are).
    static func frames(_ text: String, count: Int) -> [UInt8] {
        let payload = Array(text.utf8)
        precondition(payload.count < 126)
        let frame = [0x81, 0x80 | UInt8(payload.count), 0, 0, 0, 0] + payload
        return Array([[UInt8]](repeating: frame, count: count).joined())
    }

    /// Writes what the socket takes now: the bytes written, 0 when it takes none (full), -1 on an error.
    func sendSome(_ bytes: [UInt8]) -> Int {
        let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if written < 0 { return errno == EAGAIN ? 0 : -1 }
        return written
    }
}
