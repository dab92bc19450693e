import Logging
import ServiceLifecycle
import Systemd

/// SIGHUP: RELOADING=1, read the config again, apply what can change live, READY=1. A config that no
/// longer parses is logged and the running one is kept.
struct ReloadService: Service {
    /// Trapped before the socket listens: an early SIGHUP must not kill the daemon (its default action).
    let signals: AsyncStream<Void>
    let notifier: SystemdNotifier
    let reload: @Sendable () -> Result<String, any Error>
    let statusLine: @Sendable () -> String
    let logger: Logger

    func run() async throws {
        for await _ in signals.cancelOnGracefulShutdown() {
            notifier.reloading()
            switch reload() {
            case .success(let summary):
                logger.notice("configuration reloaded", metadata: ["splashd_op": "reload", "splashd_changes": "\(summary)"])
            case .failure(let error):
                logger.error("configuration not reloaded; keeping the running one: \(error)", metadata: ["splashd_op": "reload"])
            }
            notifier.ready(status: statusLine())
        }
    }
}
