import Foundation

/// `google.connect`: starts authorising splashd with Google for the Photos picker (a Desktop client's
/// loopback flow with PKCE). Open `url`, then call google.connect_finish.
public struct GoogleConnectRequest: RPCRequest {
    public typealias Result = BrowserFlowStart
    public static let method = "google.connect"
    public static let summary = """
        Starts authorising splashd with Google for the Photos picker (scope photospicker.mediaitems.readonly; the \\
        configured Desktop client, PKCE, a one-shot listener on 127.0.0.1 for five minutes). Open url, then call \\
        google.connect_finish.
        """
    public static let errors: [ErrorKind] = [.offline, .internalError]
    public static let example = GoogleConnectRequest()
    public static let resultExample = BrowserFlowStart(
        flow: "Zx81dQe0kL2p",
        url: "https://accounts.google.com/o/oauth2/v2/auth?client_id=1234-abc.apps.googleusercontent.com&redirect_uri=http%3A%2F%2F127.0.0.1%3A40917%2Fcallback&response_type=code&scope=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fphotospicker.mediaitems.readonly&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=kQ2&access_type=offline&prompt=consent",
        redirectUri: "http://127.0.0.1:40917/callback", expiresAt: Date(timeIntervalSince1970: 1_795_000_300))
    public init() {}
}

/// `google.connect_finish`: waits up to `wait_seconds` for the browser of google.connect to come back
/// (or takes the address it ended on), then exchanges its code for tokens. `connected` false: still
/// waiting; ask again.
public struct GoogleConnectFinishRequest: RPCRequest {
    public typealias Result = GoogleStatus
    public static let method = "google.connect_finish"
    public static let summary = """
        Finishes google.connect: waits for the browser's return (or takes the address it ended on), checks its state \\
        and the scope granted, and keeps Google's tokens (0600). Answers connected false while still waiting.
        """
    public static let parameters = [
        ParameterDoc("flow", "string", required: true, "The flow google.connect answered."),
        ParameterDoc("callback_url", "string", "The address the browser ended on, pasted: finishes at once."),
        ParameterDoc("wait_seconds", "integer", "How long to wait for the browser in this request (1 to 120, default 60)."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound, .rejected, .offline]
    public static let example = GoogleConnectFinishRequest(flow: "Zx81dQe0kL2p", waitSeconds: 60)
    public static let resultExample = GoogleStatus.example

    public var flow: String
    public var callbackUrl: String?
    public var waitSeconds: Int?

    public init(flow: String, callbackUrl: String? = nil, waitSeconds: Int? = nil) {
        self.flow = flow
        self.callbackUrl = callbackUrl
        self.waitSeconds = waitSeconds
    }

    public func validate() throws(RPCError) {
        if let waitSeconds, !(1...120).contains(waitSeconds) {
            throw .invalidInput(.mustBeBetween(name: "wait_seconds", minimum: 1, maximum: 120), field: "wait_seconds")
        }
    }
}

/// `google.status`: whether splashd is connected to Google; with `refresh`, the access token is
/// refreshed now (which also finds out whether Google still honours the connection).
public struct GoogleStatusRequest: RPCRequest {
    public typealias Result = GoogleStatus
    public static let method = "google.status"
    public static let summary = "Whether splashd is connected to Google (and why not, when Google ended it); refresh: refresh the access token now."
    public static let parameters = [ParameterDoc("refresh", "boolean", "Refresh the access token now (asks Google).")]
    public static let errors: [ErrorKind] = [.notSignedIn, .rejected, .offline]
    public static let example = GoogleStatusRequest(refresh: true)
    public static let resultExample = GoogleStatus.example

    public var refresh: Bool?

    public init(refresh: Bool? = nil) {
        self.refresh = refresh
    }
}

public struct GoogleStatus: Codable, Sendable, Equatable {
    /// A Desktop client is configured (google.client_id and google.client_secret).
    public var configured: Bool
    public var connected: Bool
    public var scope: String?
    /// When the access token expires (refreshed before use after that).
    public var expiresAt: Date?
    public var connectedAt: Date?
    /// Why the last connection ended, when Google ended it (a refresh token revoked or expired).
    public var endedBecause: String?

    public init(
        configured: Bool, connected: Bool, scope: String? = nil, expiresAt: Date? = nil, connectedAt: Date? = nil, endedBecause: String? = nil
    ) {
        self.configured = configured
        self.connected = connected
        self.scope = scope
        self.expiresAt = expiresAt
        self.connectedAt = connectedAt
        self.endedBecause = endedBecause
    }

    public static let example = GoogleStatus(
        configured: true, connected: true, scope: "https://www.googleapis.com/auth/photospicker.mediaitems.readonly",
        expiresAt: Date(timeIntervalSince1970: 1_795_003_600), connectedAt: Date(timeIntervalSince1970: 1_795_000_000))
}

/// `google.disconnect`: revokes splashd's grant at Google and forgets its tokens; photos imported from
/// Google Photos stay.
public struct GoogleDisconnectRequest: RPCRequest {
    public typealias Result = GoogleDisconnectResult
    public static let method = "google.disconnect"
    public static let summary = "Revokes splashd's grant at Google (best effort) and forgets its tokens; imported photos stay."
    public static let errors: [ErrorKind] = [.notSignedIn]
    public static let example = GoogleDisconnectRequest()
    public static let resultExample = GoogleDisconnectResult(disconnected: true, googleNotified: true)
    public init() {}
}

public struct GoogleDisconnectResult: Codable, Sendable, Equatable {
    public var disconnected: Bool
    /// False when Google could not be told (the tokens are forgotten here anyway).
    public var googleNotified: Bool

    public init(disconnected: Bool, googleNotified: Bool) {
        self.disconnected = disconnected
        self.googleNotified = googleNotified
    }
}
