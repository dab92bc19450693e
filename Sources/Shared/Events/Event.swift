import Foundation

public enum EventType: String, Codable, Sendable, CaseIterable {
    case connectivityChanged = "connectivity.changed"
    case liveChanged = "live.changed"
    case desktopChanged = "desktop.changed"
    case pauseChanged = "pause.changed"
    case accountChanged = "account.changed"
    case outboxChanged = "outbox.changed"
    case libraryChanged = "library.changed"
    case photoChanged = "photo.changed"
    case imagesChanged = "images.changed"
    case importProgress = "import.progress"
    case profileUpdated = "profile.updated"
    case usersChanged = "users.changed"
    case searchRefreshed = "search.refreshed"
    case daemonReloaded = "daemon.reloaded"
    case daemonStopping = "daemon.stopping"
    /// Sent to a subscriber that read too slowly: this many events were dropped for it.
    case eventsMissed = "events.missed"
}

/// What happened. Each case carries its own typed payload, encoded under `data`.
public enum Event: Sendable, Equatable {
    case connectivityChanged(ConnectivityStatus)
    /// The live channel opened, closed or is joining.
    case liveChanged(LiveChannelStatus)
    /// The desktop's word changed (a metered network, the battery, power saver), or what waits for it.
    case desktopChanged(DesktopStatus)
    /// The person paused sync, resumed it, or a pause ended by itself.
    case pauseChanged(PauseStatus)
    case accountChanged(AccountStatus)
    case outboxChanged(OutboxCounts)
    case libraryChanged(LibraryCounts)
    case photoChanged(PhotoChange)
    /// A library file started downloading, arrived, or failed.
    case imagesChanged(ImagesProgress)
    /// A folder import went one file further.
    case importProgress(ImportProgress)
    /// The signed-in account's profile changed here or on the server.
    case profileUpdated(Profile)
    /// Someone signed up (learnt through the live channel): the count and the newest sign-ups.
    case usersChanged(UsersChange)
    /// A search the store answered at once was run again in the background: the fresh page, or why not.
    case searchRefreshed(SearchRefreshed)
    case daemonReloaded
    case daemonStopping
    case eventsMissed(count: Int)

    public var type: EventType {
        switch self {
        case .connectivityChanged: .connectivityChanged
        case .liveChanged: .liveChanged
        case .desktopChanged: .desktopChanged
        case .pauseChanged: .pauseChanged
        case .accountChanged: .accountChanged
        case .outboxChanged: .outboxChanged
        case .libraryChanged: .libraryChanged
        case .photoChanged: .photoChanged
        case .imagesChanged: .imagesChanged
        case .importProgress: .importProgress
        case .profileUpdated: .profileUpdated
        case .usersChanged: .usersChanged
        case .searchRefreshed: .searchRefreshed
        case .daemonReloaded: .daemonReloaded
        case .daemonStopping: .daemonStopping
        case .eventsMissed: .eventsMissed
        }
    }
}

public struct PhotoChange: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case added, updated, liked, unliked, dismissed, restored, edited
    }

    public var id: String
    public var change: Kind

    public init(id: String, change: Kind) {
        self.id = id
        self.change = change
    }
}

public struct MissedCount: Codable, Sendable, Equatable {
    public var count: Int
}

/// The params of an `event` notification: `{"seq":..,"time":..,"type":..,"data":{..}}`.
public struct EventNotification: Codable, Sendable, Equatable {
    public static let method = "event"

    public var seq: UInt64
    public var time: Date
    public var event: Event

    public init(seq: UInt64, time: Date, event: Event) {
        self.seq = seq
        self.time = time
        self.event = event
    }

    enum CodingKeys: String, CodingKey { case seq, time, type, data }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(UInt64.self, forKey: .seq)
        time = try container.decode(Date.self, forKey: .time)
        let type = try container.decode(EventType.self, forKey: .type)
        switch type {
        case .connectivityChanged: event = .connectivityChanged(try container.decode(ConnectivityStatus.self, forKey: .data))
        case .liveChanged: event = .liveChanged(try container.decode(LiveChannelStatus.self, forKey: .data))
        case .desktopChanged: event = .desktopChanged(try container.decode(DesktopStatus.self, forKey: .data))
        case .pauseChanged: event = .pauseChanged(try container.decode(PauseStatus.self, forKey: .data))
        case .accountChanged: event = .accountChanged(try container.decode(AccountStatus.self, forKey: .data))
        case .outboxChanged: event = .outboxChanged(try container.decode(OutboxCounts.self, forKey: .data))
        case .libraryChanged: event = .libraryChanged(try container.decode(LibraryCounts.self, forKey: .data))
        case .photoChanged: event = .photoChanged(try container.decode(PhotoChange.self, forKey: .data))
        case .imagesChanged: event = .imagesChanged(try container.decode(ImagesProgress.self, forKey: .data))
        case .importProgress: event = .importProgress(try container.decode(ImportProgress.self, forKey: .data))
        case .profileUpdated: event = .profileUpdated(try container.decode(Profile.self, forKey: .data))
        case .usersChanged: event = .usersChanged(try container.decode(UsersChange.self, forKey: .data))
        case .searchRefreshed: event = .searchRefreshed(try container.decode(SearchRefreshed.self, forKey: .data))
        case .daemonReloaded: event = .daemonReloaded
        case .daemonStopping: event = .daemonStopping
        case .eventsMissed: event = .eventsMissed(count: try container.decode(MissedCount.self, forKey: .data).count)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(time, forKey: .time)
        try container.encode(event.type, forKey: .type)
        switch event {
        case .connectivityChanged(let value): try container.encode(value, forKey: .data)
        case .liveChanged(let value): try container.encode(value, forKey: .data)
        case .desktopChanged(let value): try container.encode(value, forKey: .data)
        case .pauseChanged(let value): try container.encode(value, forKey: .data)
        case .accountChanged(let value): try container.encode(value, forKey: .data)
        case .outboxChanged(let value): try container.encode(value, forKey: .data)
        case .libraryChanged(let value): try container.encode(value, forKey: .data)
        case .photoChanged(let value): try container.encode(value, forKey: .data)
        case .imagesChanged(let value): try container.encode(value, forKey: .data)
        case .importProgress(let value): try container.encode(value, forKey: .data)
        case .profileUpdated(let value): try container.encode(value, forKey: .data)
        case .usersChanged(let value): try container.encode(value, forKey: .data)
        case .searchRefreshed(let value): try container.encode(value, forKey: .data)
        case .daemonReloaded, .daemonStopping: try container.encode(NoParams(), forKey: .data)
        case .eventsMissed(let count): try container.encode(MissedCount(count: count), forKey: .data)
        }
    }
}
