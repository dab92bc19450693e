import Account
import HTTP
import Shared

extension WireErrors {
    /// An account failure in words a person can act on. Auth codes are Supabase's
    /// (`invalid_credentials`, `user_already_exists`, `weak_password`, ...).
    static func account(_ failure: AccountFailure) -> RPCError {
        switch failure {
        case .notSignedIn(let why):
            return RPCError(.notSignedIn, why)
        case .backend(.notConfigured):
            return RPCError(.offline, "no account server is configured; set backend.url and backend.anon_key (or SPLASHD_BACKEND_URL and SPLASHD_ANON_KEY)")
        case .backend(.network(let error)):
            // As SourceError.from: waiting mends only transient failures; the rest are refusals.
            if error.isTransient { return RPCError(.offline, "cannot reach the account server: \(error); try again when online") }
            if case .tooLarge = error { return RPCError(.tooLarge, "the account server's answer was refused: \(error)") }
            return RPCError(.rejected, "cannot use the account server: \(error)")
        case .backend(.malformed(let status, _)):
            return RPCError(.offline, "the account server sent an answer splashd cannot read (HTTP \(status)); try again later")
        case .backend(.server(let error)):
            return supabase(error)
        case .backend(.local(let detail)):
            return RPCError(.internalError, detail)
        }
    }

    static func supabase(_ error: SupabaseError) -> RPCError {
        if error.status == 429 {
            let wait = error.retryAfter.map { " in \(Int($0.rounded(.up))) s" } ?? " later"
            return RPCError(.rateLimited, "too many attempts; the server asks to try again\(wait)", retryAfter: error.retryAfter)
        }
        if (300..<400).contains(error.status) {
            return RPCError(.rejected, "the account server answered with a redirect (HTTP \(error.status)); check backend.url")
        }
        if error.unreadable {
            return RPCError(.offline, "the account server failed (HTTP \(error.status)) with an unreadable answer; try again later")
        }
        switch error.code {
        case "invalid_credentials", "invalid_grant":
            return RPCError(.rejected, "wrong e-mail or password")
        case "user_already_exists", "email_exists":
            return RPCError(.conflict, "an account with this e-mail address already exists; sign in instead", field: "email")
        case "weak_password":
            return RPCError(.invalidInput, "the password is too weak: " + weakReasons(error), field: "password")
        case "email_not_confirmed":
            return RPCError(.rejected, "the e-mail address is not confirmed yet; follow the link sent to it, then sign in")
        case "user_banned":
            return RPCError(.permissionDenied, "this account is banned on the server")
        case "validation_failed", "email_address_invalid":
            return RPCError(.invalidInput, "the server refused the input: \(error.message)")
        case "signup_disabled", "email_provider_disabled":
            return RPCError(.rejected, "the server does not accept new accounts")
        case "over_request_rate_limit", "over_email_send_rate_limit":
            return RPCError(.rateLimited, "too many attempts; try again later", retryAfter: error.retryAfter)
        default:
            break
        }
        if error.status >= 500 || error.status == 408 {
            return RPCError(.offline, "the account server failed (HTTP \(error.status)); try again later")
        }
        return RPCError(.rejected, "the account server refused: \(error.message)")
    }

    static func weakReasons(_ error: SupabaseError) -> String {
        let words = error.weakPasswordReasons.map { reason -> String in
            switch reason {
            case "length": "it is shorter than \(AccountRules.passwordLength.lowerBound) characters"
            case "characters": "it needs more kinds of characters (lower case, upper case, digits, symbols)"
            case "pwned": "it appears in known data breaches"
            default: reason
            }
        }
        return words.isEmpty ? error.message : words.joined(separator: "; ")
    }
}
