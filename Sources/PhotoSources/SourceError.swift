import HTTP
import Shared

/// Why a photo source gave no usable answer.
public enum SourceError: Error, Equatable, CustomStringConvertible {
    case notConfigured(String)
    case unreachable(String)
    case rateLimited(String)
    case refused(status: Int, message: String)
    case malformed(String)
    /// An answer splashd will not take and that waiting will not mend: an untrusted certificate, a
    /// body over the size limit, a redirect loop, plain http to a public host.
    case untrusted(String, tooLarge: Bool)

    public var description: String {
        switch self {
        case .notConfigured(let text), .unreachable(let text), .rateLimited(let text), .malformed(let text), .untrusted(let text, _): text
        case .refused(let status, let message): "HTTP \(status): \(message)"
        }
    }

    /// The control protocol's error, in words a person can act on.
    public var rpcError: RPCError {
        switch self {
        case .notConfigured(let text): RPCError(.offline, text)
        case .unreachable(let text): RPCError(.offline, "\(text); try again when online")
        case .rateLimited(let text): RPCError(.rateLimited, text, retryAfter: 3600)
        case .refused(let status, let message):
            status == 404 ? RPCError(.notFound, message) : RPCError(.rejected, "the photo service refused the request (HTTP \(status)): \(message)")
        case .malformed(let text): RPCError(.offline, "the photo service sent an answer splashd cannot read: \(text)")
        case .untrusted(let text, let tooLarge): RPCError(tooLarge ? .tooLarge : .rejected, text)
        }
    }

    static func from(_ error: HTTPError, service: String) -> SourceError {
        if error.isTransient { return .unreachable("cannot reach \(service): \(error)") }
        if case .tooLarge = error { return .untrusted("\(service)'s answer was refused: \(error)", tooLarge: true) }
        return .untrusted("cannot use \(service): \(error)", tooLarge: false)
    }
}
