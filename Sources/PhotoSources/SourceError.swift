import Foundation
import HTTP
import Shared

/// Why a photo source gave no usable answer. The why is a sentence of the protocol's (DaemonText),
/// so the wire can carry it for clients in other languages; its English is the description, for logs
/// and for the reason a stale answer shows.
public enum SourceError: Error, Equatable, CustomStringConvertible {
    case notConfigured(DaemonText)
    case unreachable(DaemonText)
    /// Over the service's hourly budget; `resetsBy` is when it has room again at the latest, as far as
    /// this daemon's own requests tell (nil: the service has no such budget).
    case rateLimited(DaemonText, resetsBy: Date?)
    /// The service's own words (`message`) with its status.
    case refused(status: Int, message: String)
    case malformed(DaemonText)
    /// An answer splashd will not take and that waiting will not mend: an untrusted certificate, a
    /// body over the size limit, a redirect loop, plain http to a public host.
    case untrusted(DaemonText, tooLarge: Bool)

    public var description: String {
        switch self {
        case .notConfigured(let text), .unreachable(let text), .rateLimited(let text, _), .malformed(let text), .untrusted(let text, _):
            text.english
        case .refused(let status, let message): "HTTP \(status): \(message)"
        }
    }

    /// When asking again can succeed, if the failure says (an hourly budget's reset).
    public var retryAt: Date? {
        if case .rateLimited(_, let resetsBy) = self { return resetsBy }
        return nil
    }

    static func from(_ error: HTTPError, service: String) -> SourceError {
        if error.isTransient { return .unreachable(.cannotReachService(service: service, why: error.text)) }
        if case .tooLarge = error { return .untrusted(.serviceAnswerRefused(service: service, why: error.text), tooLarge: true) }
        return .untrusted(.cannotUseService(service: service, why: error.text), tooLarge: false)
    }
}
