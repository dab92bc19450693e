import Library
import Logging
import Shared
import Synchronization

/// Keeps the library and outbox counters in `DaemonState` in step with the store, after every change
/// a handler, the push engine, the pull or the image queue makes.
struct LibraryCounter: Sendable {
    let state: DaemonState
    let library: PhotoLibrary
    let logger: Logger

    /// Counting and publishing happen under one lock: callers on several threads (the push engine,
    /// the image queue, handlers) would otherwise publish their counts out of the order they read them,
    /// and an older count could arrive after a newer one (seen in the benchmark's event timings).
    func refresh() {
        Self.lock.withLock { _ in
            do {
                let counts = try library.counts(accountId: state.current.account.userId ?? "")
                state.setLibrary(counts.library)
                state.setOutbox(counts.outbox)
            } catch {
                logger.error("cannot count the library: \(error)")
            }
        }
    }

    private static let lock = Mutex(())
}
