import Logging
import ServiceLifecycle
import Shared
import Systemd

/// The first service to hear of a graceful shutdown (services stop in reverse order, and this one is
/// registered last): tells systemd STOPPING=1 and subscribers `daemon.stopping`.
struct ShutdownAnnouncer: Service {
    let notifier: SystemdNotifier
    let state: DaemonState
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        notifier.stopping()
        state.bus.publish(.daemonStopping)
        logger.notice("stopping", metadata: ["splashd_op": "stop"])
    }
}
