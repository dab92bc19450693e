import Account
import HTTP
import OAuth
import PhotoSources
import Shared
import Supabase

extension WireErrors {
    /// An account failure in words a person can act on. Auth codes are Supabase's
    /// (`invalid_credentials`, `user_already_exists`, `weak_password`, ...).
    static func account(_ failure: AccountFailure) -> RPCError {
        switch failure {
        case .notSignedIn(let text):
            return RPCError(.notSignedIn, text)
        case .backend(.notConfigured):
            return RPCError(.offline, .noAccountServer)
        case .backend(.network(let error)):
            // As SourceError.from: waiting mends only transient failures; the rest are refusals.
            if error.isTransient { return RPCError(.offline, .accountServerUnreachable(why: error.text)) }
            if case .tooLarge = error { return RPCError(.tooLarge, .accountServerAnswerTooLarge(why: error.text)) }
            return RPCError(.rejected, .accountServerUnusable(why: error.text))
        case .backend(.malformed(let status, _)):
            return RPCError(.offline, .accountServerUnreadable(status: status))
        case .backend(.server(let error)):
            return supabase(error)
        case .backend(.local(let detail)):
            return RPCError(.internalError, .accountLocalFailure(detail: detail))
        }
    }

    /// A browser flow that did not bring back a code: the person starts again with `again`.
    static func browserFlow(_ failure: BrowserFlowFailure, again: String) -> RPCError {
        switch failure {
        case .unknownFlow: RPCError(.notFound, .browserFlowUnknown(again: again), field: "flow")
        case .timedOut(let minutes): RPCError(.notFound, .browserFlowTimedOut(minutes: minutes, again: again), field: "flow")
        case .wrongState: RPCError(.rejected, .browserFlowWrongState(again: again))
        case .refused(let error, let description): RPCError(.rejected, .browserFlowRefused(error: error, reason: description))
        case .noCode: RPCError(.rejected, .browserFlowNoCode(again: again))
        case .notACallback(let url): RPCError(.invalidInput, .browserFlowNotACallback(url: url), field: "callback_url")
        case .cannotListen(let detail): RPCError(.internalError, .browserFlowCannotListen(detail: detail))
        }
    }

    static func supabase(_ error: SupabaseError) -> RPCError {
        if error.status == 429 {
            let seconds = error.retryAfter.map { Int($0.rounded(.up)) }
            return RPCError(.rateLimited, .tooManyAttemptsServerSays(seconds: seconds), retryAfter: error.retryAfter)
        }
        if (300..<400).contains(error.status) {
            return RPCError(.rejected, .accountServerRedirect(status: error.status))
        }
        if error.unreadable {
            return RPCError(.offline, .accountServerFailedUnreadably(status: error.status))
        }
        switch error.code {
        case "invalid_credentials", "invalid_grant":
            return RPCError(.rejected, .wrongCredentials)
        case "flow_state_not_found", "flow_state_expired", "bad_code_verifier":
            // The code the browser brought is spent, too old, or not this sign-in's.
            return RPCError(.rejected, .providerSignInCodeRefused(code: error.code ?? "", message: error.message))
        case "user_already_exists", "email_exists":
            return RPCError(.conflict, .accountExists, field: "email")
        case "weak_password":
            return RPCError(
                .invalidInput,
                .weakPassword(reasons: error.weakPasswordReasons, minimumLength: AccountRules.passwordLength.lowerBound, message: error.message),
                field: "password")
        case "email_not_confirmed":
            return RPCError(.rejected, .emailNotConfirmed)
        case "user_banned":
            return RPCError(.permissionDenied, .accountBanned)
        case "validation_failed", "email_address_invalid":
            return RPCError(.invalidInput, .serverRefusedInput(message: error.message))
        case "signup_disabled", "email_provider_disabled":
            return RPCError(.rejected, .signupsClosed)
        case "over_request_rate_limit", "over_email_send_rate_limit":
            return RPCError(.rateLimited, .tooManyAttempts, retryAfter: error.retryAfter)
        default:
            break
        }
        if error.status >= 500 || error.status == 408 {
            return RPCError(.offline, .accountServerFailed(status: error.status))
        }
        return RPCError(.rejected, .accountServerRefused(message: error.message))
    }
}
