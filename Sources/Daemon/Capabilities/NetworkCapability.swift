import Account
import Clocks
import Connectivity
import HTTP
import Logging
import Shared
import Support
import Sync

/// Connectivity: netlink changes and failed requests trigger a probe of the backend; the state shows
/// in status, events and the STATUS line, and gates the push engine and the pull (what needs the
/// backend). Every other service — Unsplash's API, NASA's, each image host — is tracked on its own
/// (`health`), from its own answers, and listed in status.
struct NetworkCapability: Sendable {
    /// Nil only if libcurl cannot start; then everything behaves as online and finds out by trying.
    let monitor: ConnectivityMonitor?
    let gate: NetworkGate
    let health: ServiceHealth

    /// The monitor probes `<backend>/auth/v1/health` with its own HTTP client: a probe must not reuse a
    /// connection that died with the old network, nor wait behind sync transfers.
    static func make(
        config: DaemonConfig, state: DaemonState, account: AccountCapability, background: BackgroundGate, http clients: HTTPClients,
        clock: AnyClock<Duration>, logger: Logger
    ) async -> NetworkCapability {
        let health = ServiceHealth { state.setServices($0) }
        let changed = ChangeSignal()
        let monitor = makeMonitor(
            config: config, state: state, health: health, changed: changed, clients: clients, clock: clock, logger: logger)
        // The monitor tells of changes only; its first word (with no backend: "no backend configured",
        // for good) is status's from the start, not "not probed yet".
        if let monitor { state.setConnectivity(monitor.current) }
        // A sync the desktop holds (a metered network and `network.on_metered = "pause"`, a machine going
        // to sleep) is offline to the push, the pull and the live channel: changes queue as when offline.
        let gate = NetworkGate(
            isOnline: { background.allowsSync && (monitor.map { ![.offline, .degraded].contains($0.current.state) } ?? true) },
            reportFailure: { monitor?.reportNetworkFailure($0) },
            probeNow: { monitor?.probeNow() }, changed: changed, allowsBulk: { background.allowsTransfers })
        // Only the monitor's verdict makes the account offline; the account's own failures ask it to probe.
        if monitor != nil { await account.manager.setOnNetworkFailure { gate.reportFailure($0) } }
        return NetworkCapability(monitor: monitor, gate: gate, health: health)
    }

    private static func makeMonitor(
        config: DaemonConfig, state: DaemonState, health: ServiceHealth, changed: ChangeSignal, clients: HTTPClients,
        clock: AnyClock<Duration>, logger: Logger
    ) -> ConnectivityMonitor? {
        var http: HTTPClient
        do {
            var configuration = config.httpConfiguration
            configuration.connectTimeout = .seconds(3)
            configuration.freshConnections = true
            http = try clients.client(configuration, label: "splashd.probe")
        } catch {
            logger.error("no connectivity monitor: \(error)", metadata: ["splashd_op": "start"])
            return nil
        }
        let base = config.backendURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        var configuration = ConnectivityMonitor.Configuration(healthURL: base.map { $0 + "/auth/v1/health" }, apiKey: config.anonKey)
        configuration.watchNetlink = true
        return ConnectivityMonitor(
            configuration: configuration, http: http, clock: clock, logger: logger, networkChanged: { health.networkChanged() }
        ) { status in
            state.setConnectivity(status)
            changed.signal()
        }
    }
}
