import Account
import Library
import Logging
import Shared
import Store
import Sync
import Systemd

/// Likes, dismissals, the queue and `sync.now`: the push engine sends what is queued (it wakes on new
/// ops, sign-ins and connectivity changes, and otherwise sleeps); the pull brings the server's likes,
/// edits and the profile down on sign-in, reconnect, `sync.now` and a schedule.
struct SyncCapability: Sendable {
    let likes: LikeActions
    /// What the domain's parts announce to: the bus, and this push engine for new work.
    let announce: Announcements
    let engine: PushEngine?
    var pull: PullEngine?
    var network: NetworkGate = .alwaysOnline
    var service: SyncService?

    static func make(
        config: DaemonConfig, store: Store, state: DaemonState, account: AccountCapability,
        network: NetworkGate, dataDirectory: String, logger: Logger
    ) -> SyncCapability {
        let notifier = SystemdNotifier()
        let gate = SyncGate()  // push batches and pull pages take turns
        let pushEngine = account.backend.map { backend in
            PushEngine(
                store: store, session: account.manager, backend: backend, dataDirectory: dataDirectory, network: network,
                configuration: pushConfiguration(config), gate: gate, clock: account.clock, logger: logger,
                alsoPush: { await account.profiles.push() },
                announce: state.photosChanged)
        }
        let announce = state.announcements(outboxQueued: { pushEngine?.ring() })
        let pullEngine = account.backend.map { backend in
            PullEngine(
                store: store, session: account.manager, backend: backend, dataDirectory: dataDirectory, network: network,
                interval: {
                    state.current.live.state == .live ? .seconds(config.pullIntervalLiveSeconds) : .seconds(config.pullIntervalSeconds)
                }, gate: gate, logger: logger,
                synced: {
                    state.markSynced()
                    notifier.status(state.statusLine())
                },
                alsoPull: { userId in try? await account.profiles.pull(userId: userId) },
                changed: announce.photosChanged)
        }
        _ = state.bus.subscribe(types: [.accountChanged, .connectivityChanged], snapshot: {}) { notification in
            if case .connectivityChanged(let status) = notification.event, status.state != .unknown {
                // The backend answers again: what is queued goes at once, not when its backoff ends,
                // and the account says what connectivity says (never "offline" beside "online").
                // Off the bus's lock: both publish events of their own.
                let answers = status.state == .online
                let userId = state.current.account.userId
                Task {
                    await account.manager.backendReachabilityChanged(answers)
                    if answers, let userId { pushEngine?.sendNow(accountId: userId) }
                }
            }
            pushEngine?.ring()
            pullEngine?.ring()
        }
        return SyncCapability(
            likes: LikeActions(store: store, clock: account.clock, announce: announce), announce: announce, engine: pushEngine, pull: pullEngine, network: network,
            service: pushEngine.map { SyncService(store: store, push: $0, pull: pullEngine, network: network) })
    }
}

extension SyncCapability {
    static func pushConfiguration(_ config: DaemonConfig) -> PushEngine.Configuration {
        var configuration = PushEngine.Configuration()
        configuration.originalMaximumBytes = Int64(config.originalsMaxMiB) << 20
        return configuration
    }
}
