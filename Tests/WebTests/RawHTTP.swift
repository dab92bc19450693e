#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Support

/// One HTTP/1.1 exchange over a plain TCP socket, every byte of the request the test's: a browser
/// would not let a test send a wrong Host or leave out a cookie, and an HTTP library tidies requests.
struct RawHTTP {
    struct Answer {
        var status: Int
        /// Lowercased names; a name sent twice keeps its last value.
        var headers: [String: String]
        var body: Data

        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    let port: Int

    /// `GET path` (or `method`) with these headers (Connection: close is added); nil headers are left out.
    /// The socket's blocking reads run on a thread of their own (`blockingWork`), never on one of the
    /// two cooperative threads the gallery's own handlers need.
    func send(_ path: String, method: String = "GET", headers: [String: String?]) async throws -> Answer {
        var request = "\(method) \(path) HTTP/1.1\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            if let value { request += "\(name): \(value)\r\n" }
        }
        request += "Connection: close\r\n\r\n"
        let bytes = Data(request.utf8)
        return try await blockingWork { [self] in Result { try exchange(bytes) } }.get()
    }

    /// Sends `request` as it is (nothing added) and reads until the server ends the connection.
    func sendRaw(_ request: Data) async throws -> Data {
        try await blockingWork { [self] in Result { try exchangeBytes(request) } }.get()
    }

    func exchange(_ request: Data) throws -> Answer {
        try Self.parse(try exchangeBytes(request))
    }

    /// The server held the connection open without a word for `patience`.
    struct Unanswered: Error {}

    func exchangeBytes(_ request: Data, patience: Int = 30) throws -> Data {
        let fd = try Self.connect(port: port)
        defer { close(fd) }
        // A server that never answers is a failure to report, not a test that hangs.
        var timeout = timeval(tv_sec: patience, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // All of it, or until the server closes its end (MSG_NOSIGNAL: a closed end is an error
        // here, not SIGPIPE for the whole test process); then whatever it answered.
        request.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = Glibc.send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                if count <= 0 { break }
                sent += count
            }
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw Unanswered() }
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return received
    }

    struct Unreadable: Error {}

    /// A TCP connection to 127.0.0.1:`port`, blocking; the caller closes it.
    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let failure = POSIXError(.init(rawValue: errno) ?? .ECONNREFUSED)
            close(fd)
            throw failure
        }
        return fd
    }

    static func parse(_ data: Data) throws -> Answer {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { throw Unreadable() }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        guard let statusLine = head.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else { throw Unreadable() }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[end.upperBound...])
        if headers["transfer-encoding"] == "chunked" { body = dechunk(body) }
        return Answer(status: status, headers: headers, body: body)
    }

    static func dechunk(_ data: Data) -> Data {
        var out = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)),
              let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16), size > 0 {
            let start = lineEnd.upperBound
            out.append(rest[start..<min(start + size, rest.endIndex)])
            rest = rest[min(start + size + 2, rest.endIndex)...]
        }
        return out
    }
}
