import Library
import Logging
import Shared
import Store
import Synchronization

/// Keeps the library and outbox counters in `DaemonState` in step with the store: after every commit that
/// changed what they count, whoever wrote (`observeStore`, the store's `CountsObserver`), and when what
/// they count by changes without a write (the account: liked and queued counts are per account).
///
/// Counting and publishing happen under one lock: callers on several threads (the writer's commits, a
/// refresh) would otherwise publish their counts out of the order they read them, and an older count
/// could arrive after a newer one and stay (seen in the benchmark's event timings, and as `status`
/// showing 4 library files of 5 after five transfers ended together).
struct LibraryCounter: Sendable {
    let state: DaemonState
    let library: PhotoLibrary
    let logger: Logger
    /// Test seam: called between reading the counts and publishing them.
    var counted: @Sendable () -> Void = {}

    /// From now on, the counts are read and published after every commit that moved them, on the
    /// writer's queue before its next write. Once per store.
    func observeStore() {
        library.store.observeCounts(accountId: { [state] in state.current.account.userId ?? "" }) { counts in
            Self.lock.withLock { _ in publish(counts) }
        }
    }

    /// The library's and the outbox's counters read now: one lookup each (the store's triggers keep
    /// them), so a caller that changed only one side refreshes both.
    func refresh() {
        Self.lock.withLock { _ in
            publish(Result { try library.counts(accountId: state.current.account.userId ?? "") })
        }
    }

    private func publish(_ counts: Result<(library: LibraryCounts, outbox: OutboxCounts), any Error>) {
        switch counts {
        case .success(let counts):
            counted()
            state.setLibrary(counts.library)
            state.setOutbox(counts.outbox)
        case .failure(let error):
            logger.error("cannot count the library: \(error)")
        }
    }

    private static let lock = Mutex(())
}
