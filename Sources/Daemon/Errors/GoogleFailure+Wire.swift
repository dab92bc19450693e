import GooglePhotos
import Shared

extension WireErrors {
    static func google(_ failure: GoogleFailure) -> RPCError {
        switch failure {
        case .notConfigured: RPCError(.rejected, .googleNotConfigured)
        case .notConnected(let reason?): RPCError(.notSignedIn, .googleConnectionEnded(reason: reason))
        case .notConnected(nil): RPCError(.notSignedIn, .googleNotConnected)
        case .flow(let flow): browserFlow(flow, again: "splashctl google connect")
        case .refused(let error, let description): RPCError(.rejected, .googleRefused(error: error, reason: description))
        case .scopeNotGranted: RPCError(.rejected, .googleScopeNotGranted)
        case .unreachable(let detail): RPCError(.offline, .googleUnreachable(detail: detail))
        case .unknownSession: RPCError(.notFound, .googleUnknownSession, field: "session")
        case .local(let detail): RPCError(.internalError, .googleLocalFailure(detail: detail))
        }
    }
}
