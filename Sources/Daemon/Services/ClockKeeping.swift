import Account
import Foundation
import Shared
import Logging
import Sync

extension DaemonGraph {
    /// Keeps the server's clock sharp (it stamps every like and rename) and shown in status; woken when
    /// the backend answers again.
    static func clockKeeper(account: AccountCapability, state: DaemonState, network: NetworkGate, logger: Logger) -> ServerClockKeeper? {
        guard let backend = account.backend else { return nil }
        let keeper = ServerClockKeeper(
            backend: backend, clock: account.clock, isOnline: { network.isOnline() },
            publish: { state.setClock($0) }, logger: logger)
        // What a restored estimate says, from the first status on (the keeper updates it as it runs).
        state.setClock(keeper.currentStatus)
        _ = state.bus.subscribe(types: [.connectivityChanged], snapshot: {}) { notification in
            if case .connectivityChanged(let status) = notification.event, status.state == .online { keeper.ring() }
        }
        return keeper
    }
}
