import Foundation
import Shared
import Support
import Synchronization

/// What the daemon knows about itself right now, in memory: account, connectivity, outbox and library
/// counters. Changes go through `update`, which publishes the matching event on the bus atomically.
public final class DaemonState: Sendable {
    public struct Values: Sendable, Equatable {
        public var account = AccountStatus(state: .signedOut)
        public var connectivity = ConnectivityStatus(state: .unknown, text: .notProbedYet)
        public var outbox = OutboxCounts(pending: 0, inFlight: 0, rejected: 0)
        public var library = LibraryCounts.empty
        public var lastSync: Date?
        public var live = LiveChannelStatus(state: .off)
        public var services: [ServiceReachability] = []
        public var clock: ServerClockStatus?
        /// Nil until the desktop's signals are followed (never, when splashd cannot).
        public var desktop: DesktopStatus?
        public var pause: PauseStatus?
        public var bandwidth = BandwidthStatus()
    }

    public let bus: EventBus
    public let startedAt: Date
    public let directories: Directories
    private let values = Mutex(Values())
    private let startedUptime = ContinuousClock.now
    /// Read once: glibc does not cache `getpid`, and `daemon.status` is answered many thousand times a second under load.
    private let pid = getpid()

    public init(bus: EventBus, directories: Directories, startedAt: Date = Date()) {
        self.bus = bus
        self.directories = directories
        self.startedAt = startedAt
    }

    public var current: Values { values.withLock { $0 } }

    public func setLibrary(_ counts: LibraryCounts) { change(\.library, to: counts, event: Event.libraryChanged) }
    public func setOutbox(_ counts: OutboxCounts) { change(\.outbox, to: counts, event: Event.outboxChanged) }
    public func setAccount(_ status: AccountStatus) { change(\.account, to: status, event: Event.accountChanged) }
    public func setLive(_ status: LiveChannelStatus) { change(\.live, to: status, event: Event.liveChanged) }
    public func setPause(_ status: PauseStatus) { change(\.pause, to: status as PauseStatus?, event: { .pauseChanged($0 ?? .running) }) }
    public func setDesktop(_ status: DesktopStatus) { change(\.desktop, to: status as DesktopStatus?, event: { .desktopChanged($0 ?? .unknown) }) }
    /// The photo services' and image hosts' reachability (status lists it; no event of its own).
    public func setServices(_ services: [ServiceReachability]) { values.withLock { $0.services = services } }
    /// The rate limits in force (status shows them; `daemon.reloaded` announces a change).
    public func setBandwidth(_ bandwidth: BandwidthStatus) { values.withLock { $0.bandwidth = bandwidth } }
    /// This device's clock against the server's (status shows it; no event of its own).
    public func setClock(_ clock: ServerClockStatus?) { values.withLock { $0.clock = clock } }

    /// Returns once `condition` holds of the values (at once if it does now), or on cancellation.
    public func waitUntil(_ condition: (Values) -> Bool) async {
        let changed = ChangeSignal()
        let subscription = bus.subscribe(types: nil, snapshot: {}) { _ in changed.signal() }
        defer { bus.unsubscribe(subscription.id) }
        while !Task.isCancelled {
            let seen = changed.generation
            if condition(current) { return }
            await changed.wait(beyond: seen)
        }
    }

    /// The server and this machine agreed at `date` (a pull finished); shown as "synced HH:MM".
    public func markSynced(_ date: Date = Date()) {
        values.withLock { $0.lastSync = date }
    }

    /// A new connectivity state; `since` alone changing is not news.
    public func setConnectivity(_ status: ConnectivityStatus) {
        let current = values.withLock { $0.connectivity }
        guard current.state != status.state || current.reason != status.reason else { return }
        change(\.connectivity, to: status, event: Event.connectivityChanged)
    }

    /// Sets one value and publishes its event, under the bus lock, only if it changed.
    private func change<T: Equatable & Sendable>(
        _ keyPath: WritableKeyPath<Values, T>, to value: T, event: (T) -> Event
    ) {
        bus.publish {
            values.withLock { v in
                guard v[keyPath: keyPath] != value else { return nil }
                v[keyPath: keyPath] = value
                return event(value)
            }
        }
    }

    /// The full status, as `daemon.status` answers and a subscription's snapshot carries.
    ///
    /// Uptime is to the hundredth of a second, as the kernel counts a process's times: finer says
    /// nothing to anyone, and within that time the status of an unchanged daemon is the same value, whose
    /// JSON the router keeps (`Router.registerImmediate`). At the millisecond, encoding again on every
    /// change of it was still 8 % of the daemon's CPU under 32 clients (perf).
    public func status() -> DaemonStatus {
        let v = current
        let uptime = startedUptime.duration(to: .now)
        return DaemonStatus(
            version: SplashVersion.current, pid: pid, startedAt: startedAt,
            uptimeSeconds: (uptime.timeInterval * 100).rounded(.down) / 100,
            directories: directories, account: v.account, connectivity: v.connectivity, outbox: v.outbox, library: v.library,
            lastSyncAt: v.lastSync, live: v.live, services: v.services.isEmpty ? nil : v.services, clock: v.clock, desktop: v.desktop,
            pause: v.pause, bandwidth: v.bandwidth.isLimited ? v.bandwidth : nil)
    }

    /// The one-line summary systemd shows (`systemctl status`): `online · signed in as ana · 3 queued · synced 12:04`.
    public func statusLine() -> String {
        StatusLine.make(current)
    }
}

extension HoldReason {
    /// For the STATUS= line, which is English.
    var words: String {
        switch self {
        case .metered: "metered network"
        case .onBattery: "on battery"
        case .powerSaver: "power saver"
        }
    }
}

public enum StatusLine {
    /// `date` as HH:MM in `timeZone`.
    static func clockTime(_ date: Date, _ timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let at = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", at.hour ?? 0, at.minute ?? 0)
    }

    public static func make(_ v: DaemonState.Values, timeZone: TimeZone = .current) -> String {
        var parts: [String] = []
        switch v.connectivity.state {
        case .unknown: parts.append("connectivity unknown")
        case .online: parts.append("online")
        case .offline where v.connectivity.text == .noBackendConfigured: parts.append("no account server")
        case .offline: parts.append("offline")
        case .degraded: parts.append("degraded (\(v.connectivity.reason))")
        }
        let name = v.account.username ?? v.account.email ?? "?"
        switch v.account.state {
        case .signedOut: parts.append("guest (signed out)")
        case .signedIn: parts.append("signed in as \(name)")
        case .signedInOffline: parts.append("signed in as \(name) (offline)")
        }
        parts.append("\(v.outbox.pending + v.outbox.inFlight) queued")
        if v.outbox.rejected > 0 { parts.append("\(v.outbox.rejected) rejected") }
        if let lastSync = v.lastSync { parts.append("synced " + clockTime(lastSync, timeZone)) }
        if let pause = v.pause, pause.paused {
            let what = pause.downloadsOnly ? "downloads paused" : "paused"
            parts.append(pause.until.map { what + " until " + clockTime($0, timeZone) } ?? what)
        }
        if !v.services.isEmpty {
            parts.append("\(v.services.filter { $0.state == .up }.count)/\(v.services.count) photo services answer")
        }
        if let desktop = v.desktop {
            if let why = desktop.syncHeld { parts.append("sync paused (\(why.words))") }
            else if let why = desktop.transfersHeld { parts.append("downloads wait (\(why.words))") }
            if let why = desktop.backgroundHeld { parts.append("background work waits (\(why.words))") }
        }
        return parts.joined(separator: " · ")
    }
}
