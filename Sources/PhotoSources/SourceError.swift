import Foundation
import HTTP

/// Why a photo source gave no usable answer.
public enum SourceError: Error, Equatable, CustomStringConvertible {
    case notConfigured(String)
    case unreachable(String)
    /// Over the service's hourly budget; `resetsBy` is when it has room again at the latest, as far as
    /// this daemon's own requests tell (nil: the service has no such budget).
    case rateLimited(String, resetsBy: Date?)
    case refused(status: Int, message: String)
    case malformed(String)
    /// An answer splashd will not take and that waiting will not mend: an untrusted certificate, a
    /// body over the size limit, a redirect loop, plain http to a public host.
    case untrusted(String, tooLarge: Bool)

    public var description: String {
        switch self {
        case .notConfigured(let text), .unreachable(let text), .rateLimited(let text, _), .malformed(let text), .untrusted(let text, _): text
        case .refused(let status, let message): "HTTP \(status): \(message)"
        }
    }

    /// When asking again can succeed, if the failure says (an hourly budget's reset).
    public var retryAt: Date? {
        if case .rateLimited(_, let resetsBy) = self { return resetsBy }
        return nil
    }

    static func from(_ error: HTTPError, service: String) -> SourceError {
        if error.isTransient { return .unreachable("cannot reach \(service): \(error)") }
        if case .tooLarge = error { return .untrusted("\(service)'s answer was refused: \(error)", tooLarge: true) }
        return .untrusted("cannot use \(service): \(error)", tooLarge: false)
    }
}
