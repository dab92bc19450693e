import Foundation
import PhotoSources
import Shared

extension WireErrors {
    /// A photo service's failure in words a person can act on.
    static func source(_ error: SourceError) -> RPCError {
        switch error {
        case .notConfigured(let text): RPCError(.offline, text)
        case .unreachable(let text): RPCError(.offline, "\(text); try again when online")
        case .rateLimited(let text, let resetsBy):
            rateLimited(text, resetsIn: resetsBy.map { max(1, Int($0.timeIntervalSinceNow.rounded(.up))) })
        case .refused(let status, let message):
            status == 404 ? RPCError(.notFound, message) : RPCError(.rejected, "the photo service refused the request (HTTP \(status)): \(message)")
        case .malformed(let text): RPCError(.offline, "the photo service sent an answer splashd cannot read: \(text)")
        case .untrusted(let text, let tooLarge): RPCError(tooLarge ? .tooLarge : .rejected, text)
        }
    }

    /// "…; it has room again within 18 min" (minutes rounded up), and the seconds in `retry_after`.
    static func rateLimited(_ text: String, resetsIn seconds: Int?) -> RPCError {
        guard let seconds else { return RPCError(.rateLimited, text, retryAfter: 3600) }
        return RPCError(.rateLimited, "\(text); it has room again within \((seconds + 59) / 60) min", retryAfter: Double(seconds))
    }
}
