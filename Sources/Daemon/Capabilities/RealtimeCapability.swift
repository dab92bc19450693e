import Account
import Logging
import NIOCore
import Realtime
import Shared
import Store
import Sync
import ServiceLifecycle

/// The live channel: while signed in and online, one Realtime websocket on the account's
/// rows. Each change rings the pull, which fetches it through the same code as every pull; each join
/// runs one catch-up pull. Nil without a backend, or without a pull engine to ring.
struct RealtimeCapability: Sendable {
    let service: RealtimeService
    let users: UsersRefresher

    static func make(
        config: DaemonConfig, store: Store, state: DaemonState, account: AccountCapability, sync: SyncCapability, network: NetworkGate,
        group: any EventLoopGroup, logger: Logger
    ) -> RealtimeCapability? {
        guard config.realtimeEnabled, let backendURL = config.backendURL, let anonKey = config.anonKey, let pull = sync.pull else { return nil }
        let manager = account.manager
        let users = UsersRefresher(users: account.users, state: state, logger: logger)
        var configuration = RealtimeService.Configuration(
            backendURL: backendURL, anonKey: anonKey, device: store.deviceId, caFile: config.caFile, plainHosts: Set(config.plainHTTPHosts))
        configuration.heartbeatEvery = .seconds(config.realtimeHeartbeatSeconds)
        configuration.replyWithin = .seconds(config.realtimeReplySeconds)
        configuration.joinWithin = .seconds(config.realtimeJoinSeconds)
        let service = RealtimeService(
            configuration: configuration,
            logger: logger, group: group,
            account: {
                let status = await manager.status
                guard status.state == .signedIn, let userId = status.userId, network.isOnline(),
                      let token = try? await manager.accessToken()
                else { return nil }
                return RealtimeService.Account(userId: userId, accessToken: token, refreshDueAt: await manager.sessionRefreshDueAt)
            },
            changed: { table in
                guard table == "user_stats" else { return pull.ring() }
                users.refreshSoon()
            },
            joined: { pull.ring() },
            report: { channel in
                let status: LiveChannelStatus = switch channel {
                case .live: LiveChannelStatus(state: .live)
                case .joining: LiveChannelStatus(state: .joining)
                case .down(let reason): LiveChannelStatus(state: .down, text: reason)
                }
                // The pull's timer follows the channel: a live channel lost shortens it at once (not every
                // failed reconnect after that: those would pull at the reconnect's pace).
                if state.current.live.state == .live, status.state != .live { pull.ring() }
                state.setLive(status)
                account.users.setKeptFresh(status.state == .live)
            })
        // A sign-in, a sign-out or the network coming back may open or close the channel.
        _ = state.bus.subscribe(types: [.accountChanged, .connectivityChanged], snapshot: {}) { _ in service.ring() }
        return RealtimeCapability(service: service, users: users)
    }
}

/// Fetches the count and the newest sign-ups when the live channel says someone signed up, and
/// publishes them (`users.changed`). Sign-ups that come while a refresh runs are covered by one more
/// after it (the wakeup coalesces them).
final class UsersRefresher: Service, Sendable {
    private let users: UsersService
    private let state: DaemonState
    private let logger: Logger
    private let wakeup = Wakeup()

    init(users: UsersService, state: DaemonState, logger: Logger) {
        self.users = users
        self.state = state
        self.logger = logger
    }

    func refreshSoon() {
        wakeup.ring()
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.wakeup.wait(until: nil)
                if Task.isCancelled { return }
                do {
                    self.state.bus.publish(.usersChanged(try await self.users.refresh()))
                } catch {
                    self.logger.notice("cannot refresh the user count: \(error)", metadata: ["splashd_op": "users"])
                }
            }
        }
    }
}
