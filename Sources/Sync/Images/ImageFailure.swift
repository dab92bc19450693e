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
    /// The host could not be reached at all (`HTTPError.isUnreachable`): the host is down, not the file.
    public var hostUnreachable = false
    /// The connection itself failed (libcurl's network errors: reset, refused, no route), before or
    /// while an answer came: the network may be down, which the connectivity monitor is told.
    public var network = false

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

    /// nil for cancellation and shutdown: nothing failed, the daemon is stopping. Whether to retry soon
    /// follows `HTTPError.isTransient`; the words are the error's own.
    public init?(_ error: HTTPError) {
        switch error {
        case .cancelled, .shutdown:
            return nil
        case .http(let status, let headers, _):
            self.init(
                message: error.description, status: status, transient: error.isTransient,
                retryAfter: headers["retry-after"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) })
        case .invalidURL:
            self.init(message: "the photo's URL is not a valid http(s) URL", transient: false)
        default:
            self.init(message: error.description, transient: error.isTransient)
            hostUnreachable = error.isUnreachable
            if case .network = error { network = true }
        }
    }
}
