import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle
import Shared
import Support
import Synchronization
import WSClient

/// The live channel: while signed in and online, one websocket to Supabase Realtime with one channel
/// on the account's rows. A change is a doorbell: the pull fetches it, through the same code as every
/// pull (cursor, tombstones, a pending local op wins), so a change seen twice is harmless; after every
/// join one catch-up pull runs, since changes made while the socket was down are not replayed.
/// Reconnects after a loss with full jitter (1 s up to 30 s).
public final class RealtimeService: Service, Sendable {
    public struct Configuration: Sendable {
        /// The Supabase project, `https://<project>.supabase.co` (plain `http` only where HTTP may).
        public var backendURL: String
        public var anonKey: String
        /// Verify the server with this CA bundle instead of the system's (as the HTTP client does).
        public var caFile: String?
        /// Hosts reachable without TLS besides loopback.
        public var plainHosts: Set<String> = []
        public var maxFrameBytes = 1 << 20
        public var heartbeatEvery: Duration = .seconds(25)
        public var replyWithin: Duration = .seconds(10)
        public var joinWithin: Duration = .seconds(15)
        /// This device's id (the store's): the likes it acted on and the photos' rows it pushed carry it
        /// (`likes.acted_by`, `photos.written_by`), and the channel asks for the others' changes only.
        public var device: String

        public init(backendURL: String, anonKey: String, device: String, caFile: String? = nil, plainHosts: Set<String> = []) {
            self.backendURL = backendURL
            self.anonKey = anonKey
            self.device = device
            self.caFile = caFile
            self.plainHosts = plainHosts
        }
    }

    /// Whom the channel is for: nil while signed out or offline.
    public struct Account: Sendable, Equatable {
        public var userId: String
        public var accessToken: String
        /// When the session refreshes this token: the channel looks for the new one just after, so a
        /// live channel never holds an expired token (a gap Realtime would close the channel for).
        public var refreshDueAt: Date?

        public init(userId: String, accessToken: String, refreshDueAt: Date? = nil) {
            self.userId = userId
            self.accessToken = accessToken
            self.refreshDueAt = refreshDueAt
        }
    }

    public enum State: Sendable, Equatable {
        case down(DaemonText)
        case joining
        case live
    }

    private let configuration: Configuration
    private let logger: Logger
    private let account: @Sendable () async -> Account?
    private let changed: @Sendable (String) -> Void
    private let joined: @Sendable () -> Void
    private let report: @Sendable (State) -> Void
    private let wakeup = Wakeup()
    private let group: any EventLoopGroup
    /// Tables whose unasked-for changes were logged already.
    private let ignoredTables = SaidOnce()
    /// The open socket's doorbell, while there is one.
    private let current = Mutex<Wakeup?>(nil)

    /// - account: the signed-in account with a usable token (refreshed when due), or nil.
    /// - changed: a row of the table named changed on the server.
    /// - joined: the channel is live: run a catch-up pull.
    public init(
        configuration: Configuration, logger: Logger, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        account: @escaping @Sendable () async -> Account?, changed: @escaping @Sendable (String) -> Void,
        joined: @escaping @Sendable () -> Void, report: @escaping @Sendable (State) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.logger = logger
        self.group = group
        self.account = account
        self.changed = changed
        self.joined = joined
        self.report = report
    }

    /// Something changed that may let the channel open or require it to close: a sign-in or sign-out,
    /// the network lost or back. An open socket looks at once whether it may stay.
    public func ring() {
        wakeup.ring()
        current.withLock { $0 }?.ring()
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.loop() }
    }

    private func loop() async {
        var backoff = Backoff(minimum: .seconds(1), maximum: .seconds(30), jitter: 1)
        while !Task.isCancelled {
            guard let current = await account() else {
                report(.down(.liveSignedOutOrOffline))
                await wakeup.wait(until: nil)
                continue
            }
            let (reason, liveFor) = await connect(current)
            if Task.isCancelled { return }
            // Only a socket that held starts the backoff over: one the server kills right after each
            // join would otherwise be reopened every second.
            if let liveFor, liveFor >= .seconds(10) { backoff.reset() }
            let delay = backoff.next()
            report(.down(reason))
            // The first failure in a row is news; the retries after it are for the debug log.
            logger.log(level: backoff.attempt == 1 ? .notice : .debug, "realtime channel down; reconnecting", metadata: [
                "splashd_op": "realtime", "splashd_reason": "\(reason.english)", "splashd_retry_in_ms": "\(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)",
            ])
            await wakeup.wait(until: .now + delay)
        }
    }

    /// One socket, until it ends; why it ended and how long the channel was live on it (nil: never).
    private func connect(_ current: Account) async -> (DaemonText, Duration?) {
        let url: String
        do {
            url = try websocketURL()
        } catch {
            return (.liveCannotConnect(detail: "\(error)"), nil)
        }
        report(.joining)
        let live = LiveFlag()
        var settings = WebSocketClientConfiguration(maxFrameSize: configuration.maxFrameBytes)
        settings.validateUTF8 = true
        let client = WebSocketClient(
            url: url, configuration: settings, tlsConfiguration: tlsConfiguration(), eventLoopGroup: group,
            // Silent: the URL carries the anon key (Realtime's `?apikey=`), and what matters of the
            // socket's life this service logs itself.
            logger: Logger(label: "splashd.realtime.websocket", factory: { _ in SwiftLogNoOpLogHandler() })
        ) { inbound, outbound, _ in
            try await self.converse(current, inbound: inbound, outbound: outbound, live: live)
        }
        do {
            try await client.run()
            return (.liveSocketClosed, live.duration)
        } catch let ended as RealtimeConversation.Ended {
            return (ended.text, live.duration)
        } catch {
            return (.liveCannotConnect(detail: "\(error)"), live.duration)
        }
    }

    private func converse(
        _ initial: Account, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, live: LiveFlag
    ) async throws {
        let subscriptions = Self.subscriptions(userId: initial.userId, device: configuration.device)
        let rowColumns = Set(subscriptions.compactMap(\.filterColumn))
        var channel = RealtimeConversation(
            topic: PhoenixMessage.topic("splashd"), subscriptions: subscriptions, token: initial.accessToken, now: .now)
        channel.heartbeatEvery = configuration.heartbeatEvery
        channel.replyWithin = configuration.replyWithin
        channel.joinWithin = configuration.joinWithin
        let conversation = ConversationBox(channel)
        let rung = Wakeup()
        current.withLock { $0 = rung }
        defer { current.withLock { $0 = nil } }
        try await perform(conversation.state.withLock { $0.opened(now: .now) }, outbound: outbound, live: live, rung: rung)
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Heartbeats, rejoins and new tokens, each when due; otherwise asleep.
            group.addTask {
                var tokenCheck = Self.instant(after: initial.refreshDueAt)
                while true {
                    let due = conversation.state.withLock { $0.nextDeadline }
                    await rung.wait(until: tokenCheck.map { min($0, due) } ?? due)
                    try Task.checkCancellation()
                    guard let now = await self.account(), now.userId == initial.userId else {
                        throw RealtimeConversation.Ended(.liveSignedOutOrOffline)
                    }
                    tokenCheck = Self.instant(after: now.refreshDueAt)
                    let actions = try conversation.state.withLock { channel throws(RealtimeConversation.Ended) in
                        try channel.tick(now: .now, token: now.accessToken)
                    }
                    try await self.perform(actions, outbound: outbound, live: live, rung: rung)
                }
            }
            group.addTask {
                var unreadable = 0
                for try await message in inbound.messages(maxSize: self.configuration.maxFrameBytes) {
                    guard case .text(let text) = message else { continue }
                    let frame: RealtimeInbound
                    do {
                        frame = try RealtimeInbound(frame: text, rowColumns: rowColumns)
                    } catch {
                        unreadable += 1
                        if unreadable == 1 { self.logger.warning("realtime: an unreadable frame, ignored: \(error)", metadata: ["splashd_op": "realtime"]) }
                        continue
                    }
                    let actions = try conversation.state.withLock { channel throws(RealtimeConversation.Ended) in
                        try channel.received(frame, now: .now)
                    }
                    try await self.perform(actions, outbound: outbound, live: live, rung: rung)
                }
                throw RealtimeConversation.Ended(.liveSocketClosed)
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// What the channel asks for: the account's rows only, as RLS lets through to this user on every
    /// subscription; of the likes and the photos' rows, not this device's own writes, which its store
    /// holds as the push's answer left them (a push of 10,000 likes came back as 20,000 frames, each a
    /// row the server read under RLS for this channel, and each rang a pull that read nothing).
    static func subscriptions(userId: String, device: String) -> [ChangeSubscription] {
        [
            ChangeSubscription(table: "likes", filter: "acted_by=neq.\(device)"),
            ChangeSubscription(table: "edits", filter: "user_id=eq.\(userId)"),
            ChangeSubscription(table: "photos", filter: "written_by=neq.\(device)"),
            ChangeSubscription(table: "profiles", filter: "id=eq.\(userId)"),
            // One row anyone may read: every sign-up moves it.
            ChangeSubscription(table: "user_stats"),
        ]
    }

    private func perform(_ actions: [RealtimeConversation.Action], outbound: WebSocketOutboundWriter, live: LiveFlag, rung: Wakeup) async throws {
        let ignored = self.ignoredTables
        for action in actions {
            switch action {
            case .send(let message):
                try await outbound.write(.text(try message.frame()))
            case .joined:
                live.becameLive()
                report(.live)
                logger.info("realtime channel live", metadata: ["splashd_op": "realtime"])
                joined()
            case .changed(let table):
                changed(table)
            case .rejoinScheduled(let reason, _):
                report(.joining)
                logger.notice("realtime channel closed by the server; rejoining", metadata: ["splashd_op": "realtime", "splashd_reason": "\(reason)"])
                rung.ring()
            case .serverError(let message):
                logger.warning("realtime: the server reports \(message)", metadata: ["splashd_op": "realtime"])
            case .ignoredChange(let table):
                if ignored.insert(table) {
                    logger.notice("realtime: a change of \(table) this channel did not ask for, ignored (said once per table)", metadata: ["splashd_op": "realtime"])
                }
            }
        }
    }

    /// `ws(s)://<host>/realtime/v1/websocket?apikey=<anon key>&vsn=1.0.0`: TLS unless the host is
    /// loopback or one plain HTTP may reach.
    func websocketURL() throws(RealtimeSetupError) -> String {
        guard var components = URLComponents(string: configuration.backendURL), let host = components.host?.lowercased(),
              let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme)
        else { throw .badURL(configuration.backendURL) }
        if scheme == "http", !Self.isLoopback(host), !configuration.plainHosts.contains(host) {
            throw .plainToRemote(host)
        }
        components.scheme = scheme == "https" ? "wss" : "ws"
        components.path = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.path += "/realtime/v1/websocket"
        components.queryItems = [URLQueryItem(name: "apikey", value: configuration.anonKey), URLQueryItem(name: "vsn", value: "1.0.0")]
        guard let url = components.string else { throw .badURL(configuration.backendURL) }
        return url
    }

    /// The system's trust roots, or the configured CA bundle; full verification either way.
    private func tlsConfiguration() -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let caFile = configuration.caFile { tls.trustRoots = .file(caFile) }
        return tls
    }

    /// A second after `date` (the refresh has had its moment), on the monotonic clock; nil for none
    /// or a moment already past (the heartbeat's cadence covers a refresh that is late).
    static func instant(after date: Date?) -> ContinuousClock.Instant? {
        guard let date else { return nil }
        let seconds = date.timeIntervalSinceNow + 1
        return seconds > 0 ? .now + .milliseconds(Int64(seconds * 1000)) : nil
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}

/// Names said once already (log lines that would otherwise repeat for every frame).
final class SaidOnce: Sendable {
    private let names = Mutex(Set<String>())

    /// True the first time a name is given.
    func insert(_ name: String) -> Bool {
        names.withLock { $0.insert(name).inserted }
    }
}

/// What the socket's two tasks share: the conversation, under a lock.
final class ConversationBox: Sendable {
    let state: Mutex<RealtimeConversation>

    init(_ conversation: RealtimeConversation) {
        state = Mutex(conversation)
    }
}

/// Since when the channel has been live on a socket (one that held resets the reconnect backoff).
final class LiveFlag: Sendable {
    private let since = Mutex<ContinuousClock.Instant?>(nil)

    func becameLive() {
        since.withLock { $0 = $0 ?? .now }
    }

    /// How long it has been live, up to now; nil if it never was.
    var duration: Duration? {
        since.withLock { $0.map { ContinuousClock.now - $0 } }
    }
}

public enum RealtimeSetupError: Error, Equatable, CustomStringConvertible {
    case badURL(String)
    case plainToRemote(String)

    public var description: String {
        switch self {
        case .badURL(let url): "the backend URL \(url) cannot be turned into a websocket URL"
        case .plainToRemote(let host): "plain ws:// to \(host) is refused: TLS is required beyond loopback"
        }
    }
}
