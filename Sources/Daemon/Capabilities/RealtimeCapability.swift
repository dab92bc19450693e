import Account
import Logging
import NIOCore
import Realtime
import Shared
import Sync

/// The live channel (issue 18): while signed in and online, one Realtime websocket on the account's
/// rows. Each change rings the pull, which fetches it through the same code as every pull; each join
/// runs one catch-up pull. Nil without a backend, or without a pull engine to ring.
struct RealtimeCapability: Sendable {
    let service: RealtimeService

    static func make(
        config: DaemonConfig, state: DaemonState, account: AccountCapability, sync: SyncCapability, network: NetworkGate,
        group: any EventLoopGroup, logger: Logger
    ) -> RealtimeCapability? {
        guard config.realtimeEnabled, let backendURL = config.backendURL, let anonKey = config.anonKey, let pull = sync.pull else { return nil }
        let manager = account.manager
        var configuration = RealtimeService.Configuration(
            backendURL: backendURL, anonKey: anonKey, caFile: config.caFile, plainHosts: Set(config.plainHTTPHosts))
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
            changed: { _ in pull.ring() },
            joined: { pull.ring() },
            report: { channel in
                let status: LiveChannelStatus = switch channel {
                case .live: LiveChannelStatus(state: .live)
                case .joining: LiveChannelStatus(state: .joining)
                case .down(let reason): LiveChannelStatus(state: .down, reason: reason)
                }
                // The pull's timer follows the channel: a live channel lost shortens it at once (not every
                // failed reconnect after that: those would pull at the reconnect's pace).
                if state.current.live.state == .live, status.state != .live { pull.ring() }
                state.setLive(status)
            })
        // A sign-in, a sign-out or the network coming back may open or close the channel.
        _ = state.bus.subscribe(types: [.accountChanged, .connectivityChanged], snapshot: {}) { _ in service.ring() }
        return RealtimeCapability(service: service)
    }
}
