import Foundation

/// The answer to `daemon.status`, and the snapshot that starts every event subscription.
public struct DaemonStatus: Codable, Sendable, Equatable {
    public var version: String
    public var pid: Int32
    public var startedAt: Date
    public var uptimeSeconds: Double
    public var directories: Directories
    public var account: AccountStatus
    public var connectivity: ConnectivityStatus
    public var outbox: OutboxCounts
    public var library: LibraryCounts
    /// When the last pull from the server finished (nil: not since the daemon started).
    public var lastSyncAt: Date?
    /// The live channel that brings the server's changes as they happen.
    public var live: LiveChannelStatus
    /// The photo services and image hosts splashd has talked to since it started, each on its own.
    public var services: [ServiceReachability]?
    /// This device's clock against the account server's; nil before the server has answered.
    public var clock: ServerClockStatus?
    /// What the desktop says of this machine and what waits for it; absent from an older daemon.
    public var desktop: DesktopStatus?
    /// The person's pause of sync; absent from an older daemon.
    public var pause: PauseStatus?
    /// The rate limits in force; absent when there are none.
    public var bandwidth: BandwidthStatus?

    public init(
        version: String, pid: Int32, startedAt: Date, uptimeSeconds: Double, directories: Directories,
        account: AccountStatus, connectivity: ConnectivityStatus, outbox: OutboxCounts, library: LibraryCounts,
        lastSyncAt: Date? = nil, live: LiveChannelStatus = LiveChannelStatus(state: .off), services: [ServiceReachability]? = nil,
        clock: ServerClockStatus? = nil, desktop: DesktopStatus? = nil, pause: PauseStatus? = nil,
        bandwidth: BandwidthStatus? = nil
    ) {
        self.bandwidth = bandwidth
        self.clock = clock
        self.desktop = desktop
        self.pause = pause
        self.version = version
        self.pid = pid
        self.startedAt = startedAt
        self.uptimeSeconds = uptimeSeconds
        self.directories = directories
        self.account = account
        self.connectivity = connectivity
        self.outbox = outbox
        self.library = library
        self.lastSyncAt = lastSyncAt
        self.live = live
        self.services = services
    }

    public static let example = DaemonStatus(
        version: "0.1.0", pid: 4242, startedAt: Date(timeIntervalSince1970: 1_795_000_000), uptimeSeconds: 12.5,
        directories: Directories(
            state: "/home/ana/.local/state/splashd", data: "/home/ana/.local/share/splashd",
            cache: "/home/ana/.cache/splashd", runtime: "/run/user/1000/splashd",
            socket: "/run/user/1000/splashd/control.sock"),
        account: AccountStatus(state: .signedOut),
        connectivity: ConnectivityStatus(state: .unknown, text: .notProbedYet),
        outbox: OutboxCounts(pending: 0, inFlight: 0, rejected: 0),
        library: .empty,
        clock: ServerClockStatus(offsetSeconds: 0.012, uncertaintySeconds: 0.003),
        desktop: .example, pause: .example, bandwidth: .example)
}

public struct Directories: Codable, Sendable, Equatable {
    public var state: String
    public var data: String
    public var cache: String
    public var runtime: String
    public var socket: String

    public init(state: String, data: String, cache: String, runtime: String, socket: String) {
        self.state = state
        self.data = data
        self.cache = cache
        self.runtime = runtime
        self.socket = socket
    }
}

public struct AccountStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case signedOut = "signed_out"
        case signedIn = "signed_in"
        /// A session restored from disk that the server has not confirmed yet (started offline).
        case signedInOffline = "signed_in_offline"
    }

    public var state: State
    public var userId: String?
    public var email: String?
    public var username: String?

    public init(state: State, userId: String? = nil, email: String? = nil, username: String? = nil) {
        self.state = state
        self.userId = userId
        self.email = email
        self.username = username
    }
}

public struct ConnectivityStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case unknown, online, offline, degraded
    }

    public var state: State
    /// Why, in English (`text.english`).
    public var reason: String
    /// Why, as a sentence a client renders in its language; absent from an older daemon.
    public var text: DaemonText?
    public var since: Date?

    public init(state: State, text: DaemonText, since: Date? = nil) {
        self.state = state
        self.reason = text.english
        self.text = text
        self.since = since
    }

    private enum CodingKeys: String, CodingKey {
        case state, reason, text, since
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        state = try container.decode(State.self, forKey: .state)
        reason = try container.decode(String.self, forKey: .reason)
        text = container.decodeSentenceIfPresent(forKey: .text)
        since = try container.decodeIfPresent(Date.self, forKey: .since)
    }
}

public struct OutboxCounts: Codable, Sendable, Equatable {
    public var pending: Int
    public var inFlight: Int
    public var rejected: Int
    /// Likes held as near-duplicates of library photos until the person keeps (`queue.retry`) or
    /// undoes them; absent when none. Not counted in `pending`.
    public var duplicates: Int?

    public init(pending: Int, inFlight: Int, rejected: Int, duplicates: Int? = nil) {
        self.pending = pending
        self.inFlight = inFlight
        self.rejected = rejected
        self.duplicates = duplicates
    }
}

public struct LibraryCounts: Codable, Sendable, Equatable {
    public var photos: Int
    public var liked: Int
    public var edited: Int
    public var dismissed: Int
    public var files: Int
    public var bytes: Int64
    /// Liked or edited photos of the account whose originals are not shared with its other devices
    /// (too large, or refused by the server); nil: none.
    public var originalsNotShared: Int?

    public init(photos: Int, liked: Int, edited: Int, dismissed: Int, files: Int, bytes: Int64) {
        self.photos = photos
        self.liked = liked
        self.edited = edited
        self.dismissed = dismissed
        self.files = files
        self.bytes = bytes
    }

    /// An empty library.
    public static let empty = LibraryCounts(photos: 0, liked: 0, edited: 0, dismissed: 0, files: 0, bytes: 0)
}
