import Logging
import NIOCore
import ServiceLifecycle
import Store
import Support
import Systemd

/// Sends WATCHDOG=1 at half the interval systemd asked for, but only after the engine answered a
/// health check (the store reads, the socket's event loop runs). A wedged daemon stops pinging and
/// systemd restarts it. This timer is the only thing that wakes an idle daemon, so the chores of an idle
/// daemon ride it instead of waking it themselves: after a ping, memory freed since the last one goes
/// back to the system (`FreedMemory`) with the store's caches, and the pages a burst of work mapped in
/// from files go once it is over (`CleanMappedPages`).
struct WatchdogService: Service {
    let interval: Duration
    let store: Store
    let eventLoop: any EventLoop
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        // Registered first, so it stops last: pings continue while the other services drain.
        try await cancelWhenGracefulShutdown { await pingWhileHealthy() }
    }

    private func pingWhileHealthy() async {
        let period = interval / 2
        var failing = false
        var freed = FreedMemory()
        var mapped = CleanMappedPages()
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: period)
            } catch {
                return  // cancelled: shutting down
            }
            if await healthy() {
                notifier.watchdog()
                // Work happened since the last ping: the store's caches go too (they are freed as its
                // connections finish, and given back at the ping after).
                if freed.releaseIfMoved() { store.releaseMemory() }
                mapped.releaseIfGrown()
                if failing { logger.notice("health check passes again; watchdog pings resumed") }
                failing = false
            } else if !failing {
                failing = true
                logger.error("health check failed; withholding watchdog pings", metadata: ["splashd_op": "watchdog"])
            }
        }
    }

    private func healthy() async -> Bool {
        guard store.answers() else { return false }
        return (try? await eventLoop.submit {}.get()) != nil
    }
}
