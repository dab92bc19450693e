import Library
import Logging
import Shared
import Synchronization

/// Keeps the library and outbox counters in `DaemonState` in step with the store, after every change
/// a handler, the push engine, the pull or the image queue makes.
///
/// Counting and publishing happen under one lock: callers on several threads (the push engine, the
/// image queue's transfers, handlers) would otherwise publish their counts out of the order they read
/// them, and an older count could arrive after a newer one and stay (seen in the benchmark's event
/// timings, and as `status` showing 4 library files of 5 after five transfers ended together).
struct LibraryCounter: Sendable {
    let state: DaemonState
    let library: PhotoLibrary
    let logger: Logger
    /// Test seam: called between reading the counts and publishing them.
    var counted: @Sendable () -> Void = {}

    /// The library's and the outbox's counters: one lookup each (the store's triggers keep them), so
    /// a caller that changed only one side refreshes both.
    func refresh() {
        Self.lock.withLock { _ in
            do {
                let counts = try library.counts(accountId: state.current.account.userId ?? "")
                counted()
                state.setLibrary(counts.library)
                state.setOutbox(counts.outbox)
            } catch {
                logger.error("cannot count the library: \(error)")
            }
        }
    }

    private static let lock = Mutex(())
}
