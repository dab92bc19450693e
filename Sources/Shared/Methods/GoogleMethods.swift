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

/// `google.pick`: starts bringing photos in from Google Photos: a picking session at Google, where the
/// person picks at `picker_uri`; the daemon then lists, downloads and imports what was picked by itself
/// (google.picks follows it).
public struct GooglePickRequest: RPCRequest {
    public typealias Result = GooglePickStart
    public static let method = "google.pick"
    public static let summary = """
        Starts a Google Photos picking session (Picker API): open picker_uri and pick; the daemon polls it, lists the \\
        picked items, downloads the photos into the library as google: photos (near-duplicates reported and not kept, \\
        videos skipped) and deletes the session. google.picks follows it; an import cut short goes on after a restart.
        """
    public static let errors: [ErrorKind] = [.notSignedIn, .rejected, .offline]
    public static let example = GooglePickRequest()
    public static let resultExample = GooglePickStart(
        session: "7f3c9a0e-4b1d-4d5e-9a60-0c2f6e8d1b23", pickerUri: "https://photos.google.com/picker/7f3c9a0e",
        expiresAt: Date(timeIntervalSince1970: 1_795_001_800))
    public init() {}
}

public struct GooglePickStart: Codable, Sendable, Equatable {
    public var session: String
    /// Where the person picks (a browser on any device).
    public var pickerUri: String
    /// The person has until then to pick.
    public var expiresAt: Date

    public init(session: String, pickerUri: String, expiresAt: Date) {
        self.session = session
        self.pickerUri = pickerUri
        self.expiresAt = expiresAt
    }
}

/// `google.picks`: how a picking session stands, waiting up to `wait_seconds` for it to end.
public struct GooglePicksRequest: RPCRequest {
    public typealias Result = GooglePicks
    public static let method = "google.picks"
    public static let summary = "How a Google Photos picking session stands (waiting up to wait_seconds for it to end): counts, and each pick's outcome."
    public static let parameters = [
        ParameterDoc("session", "string", required: true, "The session google.pick answered."),
        ParameterDoc("wait_seconds", "integer", "Wait up to this long for the session to end (0 to 120, default 0)."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound]
    public static let example = GooglePicksRequest(session: "7f3c9a0e-4b1d-4d5e-9a60-0c2f6e8d1b23", waitSeconds: 30)
    public static let resultExample = GooglePicks.example

    public var session: String
    public var waitSeconds: Int?

    public init(session: String, waitSeconds: Int? = nil) {
        self.session = session
        self.waitSeconds = waitSeconds
    }

    public func validate() throws(RPCError) {
        if let waitSeconds, !(0...120).contains(waitSeconds) {
            throw .invalidInput(.mustBeBetween(name: "wait_seconds", minimum: 0, maximum: 120), field: "wait_seconds")
        }
    }
}

public struct GooglePicks: Codable, Sendable, Equatable {
    /// picking (the person has not finished), importing, done, expired (nothing picked in time), failed.
    public var state: String
    /// Why it expired or failed.
    public var detail: String?
    public var total: Int
    public var waiting: Int
    public var imported: Int
    public var duplicates: Int
    public var skipped: Int
    public var failed: Int
    public var picks: [GooglePick]

    public init(
        state: String, detail: String? = nil, total: Int, waiting: Int, imported: Int, duplicates: Int, skipped: Int, failed: Int,
        picks: [GooglePick]
    ) {
        self.state = state
        self.detail = detail
        self.total = total
        self.waiting = waiting
        self.imported = imported
        self.duplicates = duplicates
        self.skipped = skipped
        self.failed = failed
        self.picks = picks
    }

    public static let example = GooglePicks(
        state: "done", total: 3, waiting: 0, imported: 1, duplicates: 1, skipped: 1, failed: 0,
        picks: [
            GooglePick(item: "AF1QipN0", filename: "IMG_0001.jpg", state: "imported", photo: "google:AF1QipN0"),
            GooglePick(item: "AF1QipN1", filename: "IMG_0002.jpg", state: "duplicate", photo: "google:AF1QipN0", detail: "3 bits from google:AF1QipN0"),
            GooglePick(item: "AF1QipN2", filename: "VID_0003.mp4", state: "skipped", detail: "a video, not a photo: splashd keeps photos"),
        ])
}

public struct GooglePick: Codable, Sendable, Equatable {
    public var item: String
    public var filename: String?
    /// waiting, imported, duplicate, skipped, failed.
    public var state: String
    /// imported: the photo; duplicate: the library photo it looks like.
    public var photo: String?
    public var detail: String?

    public init(item: String, filename: String?, state: String, photo: String? = nil, detail: String? = nil) {
        self.item = item
        self.filename = filename
        self.state = state
        self.photo = photo
        self.detail = detail
    }
}
