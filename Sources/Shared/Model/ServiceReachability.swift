import Foundation

/// Whether one service splashd talks to answers: Unsplash's API, NASA's, each image host. Learnt from
/// the service's own answers (a failed request marks it down, a success up); the backend's is
/// `DaemonStatus.connectivity`, from its probes.
public struct ServiceReachability: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case up, down
    }

    /// The service's name ("Unsplash", "NASA's library") or an image host ("images.unsplash.com").
    public var service: String
    public var state: State
    /// Why it is down, in words.
    public var reason: String?
    public var since: Date
    /// When a request is tried again (down only); a network change tries at once.
    public var retryAt: Date?

    public init(service: String, state: State, reason: String? = nil, since: Date, retryAt: Date? = nil) {
        self.service = service
        self.state = state
        self.reason = reason
        self.since = since
        self.retryAt = retryAt
    }
}
