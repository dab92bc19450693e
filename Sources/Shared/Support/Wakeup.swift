import Synchronization

/// A doorbell for a sleeping loop: `ring()` from anywhere; `wait(until:)` returns at the first ring
/// or at the deadline. Rings while nobody waits are remembered (one is enough). The daemon's engines
/// (push, pull, feeds) sleep on one of these, so idle means asleep.
/// (A concurrency helper, not protocol; it lives here because every engine module already depends on
/// Shared, and it does no I/O.)
public final class Wakeup: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    public func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Suspends until a ring, the deadline (nil: none) or cancellation.
    public func wait(until deadline: ContinuousClock.Instant?) async {
        await wait(until: deadline, clock: ContinuousClock())
    }

    /// Suspends until a ring, the deadline on `clock` (nil: none) or cancellation.
    public func wait<C: Clock>(until deadline: C.Instant?, clock: C) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForRing() }
            if let deadline {
                group.addTask {
                    try? await clock.sleep(until: deadline, tolerance: nil)
                    self.ring()
                }
            }
            await group.next()
            group.cancelAll()
        }
        state.withLock { $0.rung = false }
    }

    private func waitForRing() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ringNow = state.withLock { state -> Bool in
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if ringNow { continuation.resume() }
            }
        } onCancel: {
            ring()
        }
    }
}
