import PhotoSources
import Shared

extension WireErrors {
    /// A photo service's failure in words a person can act on.
    static func source(_ error: SourceError) -> RPCError {
        switch error {
        case .notConfigured(let text): RPCError(.offline, text)
        case .unreachable(let text): RPCError(.offline, "\(text); try again when online")
        case .rateLimited(let text): RPCError(.rateLimited, text, retryAfter: 3600)
        case .refused(let status, let message):
            status == 404 ? RPCError(.notFound, message) : RPCError(.rejected, "the photo service refused the request (HTTP \(status)): \(message)")
        case .malformed(let text): RPCError(.offline, "the photo service sent an answer splashd cannot read: \(text)")
        case .untrusted(let text, let tooLarge): RPCError(tooLarge ? .tooLarge : .rejected, text)
        }
    }
}
