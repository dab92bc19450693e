import Foundation
import PhotoSources
import Shared

extension WireErrors {
    /// A photo service's failure in words a person can act on.
    static func source(_ error: SourceError) -> RPCError {
        switch error {
        case .notConfigured(let text): RPCError(.offline, text)
        case .unreachable(let text): RPCError(.offline, .sourceUnreachable(why: text))
        case .rateLimited(let text, let resetsBy):
            rateLimited(text, resetsIn: resetsBy.map { max(1, Int($0.timeIntervalSinceNow.rounded(.up))) })
        case .refused(let status, let message):
            status == 404 ? RPCError(.notFound, .sourceNotFound(message: message)) : RPCError(.rejected, .sourceRefused(status: status, message: message))
        case .malformed(let text): RPCError(.offline, .sourceUnreadable(why: text))
        case .untrusted(let text, let tooLarge): RPCError(tooLarge ? .tooLarge : .rejected, text)
        }
    }

    /// "…; it has room again within 18 min" (minutes rounded up), and the seconds in `retry_after`.
    static func rateLimited(_ text: DaemonText, resetsIn seconds: Int?) -> RPCError {
        guard let seconds else { return RPCError(.rateLimited, .sourceRateLimited(why: text, minutes: nil), retryAfter: 3600) }
        return RPCError(.rateLimited, .sourceRateLimited(why: text, minutes: (seconds + 59) / 60), retryAfter: Double(seconds))
    }
}
