import HTTP
import OAuth

/// Why something with Google did not happen. The daemon puts it into the protocol's words.
public enum GoogleFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No Desktop client configured (google.client_id and google.client_secret).
    case notConfigured
    /// Not connected, or the connection ended (`reason`: Google refused the refresh token — revoked
    /// behind splashd's back, or expired).
    case notConnected(reason: String?)
    /// The browser flow did not bring back a code.
    case flow(BrowserFlowFailure)
    /// Google refused (`error`: its OAuth error code or API status), in its words.
    case refused(error: String, description: String)
    /// The person left the Photos picker scope unticked on the consent screen.
    case scopeNotGranted
    /// Google could not be reached, or answered what splashd cannot read.
    case unreachable(String)
    /// No picking session of that id.
    case unknownSession
    /// The tokens' file could not be written.
    case local(String)

    public var description: String {
        switch self {
        case .notConfigured: "no Google client is configured"
        case .notConnected(let reason): "not connected to Google" + (reason.map { ": \($0)" } ?? "")
        case .flow(let failure): failure.description
        case .refused(let error, let description): "Google refused: \(error) (\(description))"
        case .scopeNotGranted: "the Google Photos picker permission was not granted"
        case .unreachable(let detail): "cannot reach Google: \(detail)"
        case .unknownSession: "no such picking session"
        case .local(let detail): detail
        }
    }
}
