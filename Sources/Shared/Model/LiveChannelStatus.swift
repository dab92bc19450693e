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
    /// Why it is down, in English (`text.english`).
    public var reason: String?
    /// Why it is down, as a sentence a client renders in its language; absent from an older daemon.
    public var text: DaemonText?

    public init(state: State, text: DaemonText? = nil) {
        self.state = state
        self.reason = text?.english
        self.text = text
    }

    private enum CodingKeys: String, CodingKey {
        case state, reason, text
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        state = try container.decode(State.self, forKey: .state)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        text = container.decodeSentenceIfPresent(forKey: .text)
    }
}
