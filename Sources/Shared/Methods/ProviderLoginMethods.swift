import Foundation

/// The providers a person may sign in with through the account server (its project must have them
/// enabled).
public enum SignInProvider: String, Codable, Sendable, CaseIterable {
    case google, github
}

/// `auth.provider_login`: starts a sign-in with Google or GitHub. The daemon makes a PKCE verifier and
/// a state, listens once on 127.0.0.1, and answers the address for the browser; `auth.provider_finish`
/// waits for the browser to come back (or takes the address it ended on, pasted).
public struct ProviderLoginRequest: RPCRequest {
    public typealias Result = BrowserFlowStart
    public static let method = "auth.provider_login"
    public static let summary = """
        Starts a sign-in with Google or GitHub through the account server (OAuth with PKCE, RFC 8252): the daemon \\
        listens once on 127.0.0.1 for the browser's return, for five minutes at most. Open `url` in a browser, then \\
        call auth.provider_finish.
        """
    public static let parameters = [ParameterDoc("provider", "string", required: true, "google or github.")]
    public static let errors: [ErrorKind] = [.invalidInput, .offline, .internalError]
    public static let example = ProviderLoginRequest(provider: .google)
    public static let resultExample = BrowserFlowStart.example

    public var provider: SignInProvider

    public init(provider: SignInProvider) {
        self.provider = provider
    }
}

/// A sign-in begun in the browser (auth.provider_login, google.connect).
public struct BrowserFlowStart: Codable, Sendable, Equatable {
    /// Names the sign-in for its finishing method.
    public var flow: String
    /// Where the browser starts: the account server's /authorize.
    public var url: String
    /// Where the browser comes back: the daemon's one-shot listener.
    public var redirectUri: String
    /// When the listener gives up.
    public var expiresAt: Date

    public init(flow: String, url: String, redirectUri: String, expiresAt: Date) {
        self.flow = flow
        self.url = url
        self.redirectUri = redirectUri
        self.expiresAt = expiresAt
    }

    public static let example = BrowserFlowStart(
        flow: "kq3Xo1uYc2B4",
        url: "https://abc.supabase.co/auth/v1/authorize?provider=google&redirect_to=http:%2F%2F127.0.0.1:40917%2Fcallback%3Fstate%3DkQ2&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=s256",
        redirectUri: "http://127.0.0.1:40917/callback", expiresAt: Date(timeIntervalSince1970: 1_795_000_300))
}

/// `auth.provider_finish`: waits up to `wait_seconds` for the browser of a sign-in begun with
/// auth.provider_login to come back (or finishes it at once with the address the browser ended on,
/// pasted from a machine with no browser here), then exchanges its code for a session. Still waiting:
/// `signed_in` false; ask again.
public struct ProviderFinishRequest: RPCRequest {
    public typealias Result = ProviderFinishResult
    public static let method = "auth.provider_finish"
    public static let summary = """
        Finishes a sign-in begun with auth.provider_login: waits for the browser's return (or takes the address it \\
        ended on), checks its state, and exchanges its code for a session. Answers signed_in false while still waiting.
        """
    public static let parameters = [
        ParameterDoc("flow", "string", required: true, "The flow auth.provider_login answered."),
        ParameterDoc("callback_url", "string", "The address the browser ended on (http://127.0.0.1:…/callback?…), pasted: finishes at once."),
        ParameterDoc("wait_seconds", "integer", "How long to wait for the browser in this request (1 to 120, default 60)."),
        ParameterDoc("adopt_guest", "boolean", "As auth.login."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound, .rejected, .offline]
    public static let example = ProviderFinishRequest(flow: "kq3Xo1uYc2B4", waitSeconds: 60)
    public static let resultExample = ProviderFinishResult(signedIn: true, account: .example)

    public var flow: String
    public var callbackUrl: String?
    public var waitSeconds: Int?
    public var adoptGuest: Bool?

    public init(flow: String, callbackUrl: String? = nil, waitSeconds: Int? = nil, adoptGuest: Bool? = nil) {
        self.flow = flow
        self.callbackUrl = callbackUrl
        self.waitSeconds = waitSeconds
        self.adoptGuest = adoptGuest
    }

    public func validate() throws(RPCError) {
        if let waitSeconds, !(1...120).contains(waitSeconds) {
            throw .invalidInput(.mustBeBetween(name: "wait_seconds", minimum: 1, maximum: 120), field: "wait_seconds")
        }
        if let callbackUrl, callbackUrl.utf8.count > 8192 {
            throw .invalidInput(.mustBeBetween(name: "callback_url's length", minimum: 1, maximum: 8192), field: "callback_url")
        }
    }
}

public struct ProviderFinishResult: Codable, Sendable, Equatable {
    /// False: the browser has not come back yet (ask again).
    public var signedIn: Bool
    /// The account, once signed in.
    public var account: WhoamiResult?

    public init(signedIn: Bool, account: WhoamiResult? = nil) {
        self.signedIn = signedIn
        self.account = account
    }
}
