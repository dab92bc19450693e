import ServiceLifecycle

/// Keeps the session fresh. One `run()` that sleeps until the next refresh (or confirmation, or retry)
/// is due and wakes early when the session changes; no polling.
public struct SessionRefreshService: Service {
    let manager: SessionManager

    public init(manager: SessionManager) {
        self.manager = manager
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await manager.sleepUntilDue()
                if Task.isCancelled { break }
                await manager.runDue()
            }
        }
    }
}
