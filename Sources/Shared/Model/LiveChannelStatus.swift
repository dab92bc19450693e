/// The live channel to the account server (Supabase Realtime): `live` while the server's changes
/// arrive as they happen; otherwise the timed pull is what brings them.
public struct LiveChannelStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        /// No account server configured.
        case off
        /// Signed out, offline, or lost; `reason` says which.
        case down
        /// Connecting or joining.
        case joining
        case live
    }

    public var state: State
    public var reason: String?

    public init(state: State, reason: String? = nil) {
        self.state = state
        self.reason = reason
    }
}
