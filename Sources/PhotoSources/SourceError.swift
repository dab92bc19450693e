import HTTP
import Shared

/// Why a photo source gave no usable answer.
public enum SourceError: Error, Equatable, CustomStringConvertible {
    case notConfigured(String)
    case unreachable(String)
    case rateLimited(String)
    case refused(status: Int, message: String)
    case malformed(String)

    public var description: String {
        switch self {
        case .notConfigured(let text), .unreachable(let text), .rateLimited(let text), .malformed(let text): text
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
        }
    }

    static func from(_ error: HTTPError, service: String) -> SourceError {
        .unreachable("cannot reach \(service) (\(error))")
    }
}
