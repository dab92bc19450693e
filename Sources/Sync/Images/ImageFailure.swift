#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP

/// Why one image did not arrive, and whether waiting can help. Transient failures (the network, 408, 429,
/// 5xx, a body shorter or longer than announced, a full disk) retry on the short backoff; permanent ones
/// (404, an HTML page instead of a JPEG, a redirect loop, no URL) retry only at the longest interval,
/// since a catalogue may still fix them.
public struct ImageFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var status: Int?
    public var transient: Bool
    /// Seconds the server asked us to wait (Retry-After).
    public var retryAfter: Double?

    public var description: String { message }

    public init(message: String, status: Int? = nil, transient: Bool, retryAfter: Double? = nil) {
        self.message = message
        self.status = status
        self.transient = transient
        self.retryAfter = retryAfter
    }

    public static func notAnImage(_ prefix: [UInt8]) -> ImageFailure {
        let printable = String(decoding: prefix.prefix(16).map { (32..<127).contains($0) ? $0 : 0x2E }, as: UTF8.self)
        return ImageFailure(message: "the server sent something that is not a JPEG (it starts with \"\(printable)\")", transient: false)
    }

    /// nil for cancellation and shutdown: nothing failed, the daemon is stopping.
    public init?(_ error: HTTPError) {
        switch error {
        case .cancelled, .shutdown:
            return nil
        case .network(let code, let message):
            self.init(message: "network error (curl \(code)): \(message)", transient: true)
        case .timeout:
            self.init(message: "the transfer timed out or stalled", transient: true)
        case .tls(let code, let message):
            self.init(message: "TLS failed (curl \(code)): \(message)", transient: false)
        case .http(let status, let headers, _):
            let transient = status == 408 || status == 429 || status >= 500
            self.init(
                message: "the server answered HTTP \(status)", status: status, transient: transient,
                retryAfter: headers["retry-after"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) })
        case .tooLarge(let limit):
            self.init(message: "the response exceeded \(limit) bytes", transient: false)
        case .insecureURL(let host):
            self.init(message: "refusing plain http to \(host)", transient: false)
        case .invalidURL:
            self.init(message: "the photo's URL is not a valid http(s) URL", transient: false)
        case .invalidHeader(let name):
            self.init(message: "invalid header \(name)", transient: false)
        case .tooManyRedirects:
            self.init(message: "too many redirects (a redirect loop?)", transient: false)
        case .sizeMismatch(let expected, let actual):
            self.init(message: "got \(actual) bytes where \(expected) were announced", transient: true)
        case .checksumMismatch:
            self.init(message: "the file's checksum did not match", transient: true)
        case .file(let errno, let path):
            // In words (ENOSPC: "No space left on device"): a person has to act on it.
            self.init(message: "cannot write \(path): \(String(cString: strerror(errno)))", transient: true)
        }
    }
}
