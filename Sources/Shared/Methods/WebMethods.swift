import Foundation

/// `web.open`: a one-time address of the web gallery, for the person at this machine's control socket.
public struct WebOpenRequest: RPCRequest {
    public typealias Result = WebOpenResult
    public static let method = "web.open"
    public static let summary = """
        A one-time address of the web gallery on loopback: its token is good for one visit within two \\
        minutes, which trades it for the browser's session cookie. Asked over the control socket only (the \\
        gallery's own connection is refused), so only the daemon's owner can open a session.
        """
    public static let errors: [ErrorKind] = [.permissionDenied, .conflict]
    public static let example = WebOpenRequest()
    public static let resultExample = WebOpenResult(
        url: "http://127.0.0.1:8426/?token=q8Zc1m0fWm2v6yD9Hk3sAw", expiresAt: Date(timeIntervalSince1970: 1_764_331_320))
    public init() {}
}

public struct WebOpenResult: Codable, Sendable, Equatable {
    /// The address to open, its token in the query.
    public var url: String
    /// After this the token opens nothing.
    public var expiresAt: Date
    public init(url: String, expiresAt: Date) {
        self.url = url
        self.expiresAt = expiresAt
    }
}

/// `web.revoke`: every browser session of the gallery ends (signing out of the account does the same).
public struct WebRevokeRequest: RPCRequest {
    public typealias Result = WebRevokeResult
    public static let method = "web.revoke"
    public static let summary = """
        Ends every session of the web gallery and every address not yet used: the key that signs them is \\
        replaced. Open tabs are asked to open the gallery again. Over the control socket only.
        """
    public static let errors: [ErrorKind] = [.permissionDenied, .conflict]
    public static let example = WebRevokeRequest()
    public static let resultExample = WebRevokeResult(revoked: true)
    public init() {}
}

public struct WebRevokeResult: Codable, Sendable, Equatable {
    public var revoked: Bool
    public init(revoked: Bool) { self.revoked = revoked }
}
