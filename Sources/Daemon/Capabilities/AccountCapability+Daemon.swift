import Account
import Foundation
import HTTP
import Logging
import Shared
import Store
import Support
import Systemd

extension AccountCapability {
    /// The daemon's account capability: its HTTP client, the backend from the configuration, and
    /// callbacks into the daemon's state (account status, profile events, the counts by account). The
    /// saved session is restored (and its status published) before this returns, without the network.
    static func start(
        config: DaemonConfig, store: Store, state: DaemonState, counter: LibraryCounter, stateDirectory: String, http clients: HTTPClients,
        logger: Logger
    ) async -> AccountCapability {
        var http: HTTPClient?
        do {
            http = try clients.client(config.httpConfiguration, label: "splashd.http")
        } catch {
            logger.error("no HTTP client; accounts work offline only", metadata: ["splashd_op": "start", "splashd_error": "\(error)"])
        }
        if config.backendURL == nil || config.anonKey == nil {
            logger.notice("no backend configured (backend.url, backend.anon_key); accounts work offline only", metadata: ["splashd_op": "start"])
        }
        let notifier = SystemdNotifier()
        let callbacks = AccountCapability.Callbacks(
            accountChanged: { status in
                let before = state.current.account
                state.setAccount(status)
                // Liked counts are per account: read again for this one, through the counter's lock.
                counter.refresh()
                // `systemctl status` shows the account as it is now (signed out by the server, offline, ...).
                if before != status { notifier.status(state.statusLine()) }
            },
            profileChanged: { profile in state.bus.publish(.profileUpdated(profile)) })
        // The server's clock as the last run knew it, until the server answers; what it learns is kept
        // before the answer that taught it is read.
        let clock = ServerClock(device: .system(), persist: { saved in
            do {
                try store.write { db in try DeviceRows.saveClock(db, saved, now: Date()) }
            } catch {
                logger.warning("cannot save the server's clock: \(error)", metadata: ["splashd_op": "clock"])
            }
        })
        if let saved = try? store.read({ db in try DeviceRows.savedClock(db) }) { clock.restore(saved) }
        let account = AccountCapability(
            backendURL: config.backendURL, anonKey: config.anonKey, http: http, store: store, stateDirectory: stateDirectory,
            logger: logger, clock: clock, callbacks: callbacks)
        await account.start()
        return account
    }
}
