import Synchronization

/// A counter that waiters can await past: "tell me when anything has happened since generation N,
/// or when the deadline comes". Unlike a `Wakeup` it has any number of waiters, and a signal given
/// between reading the generation and starting to wait is not missed.
public final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public var generation: UInt64 { state.withLock { $0.generation } }

    public func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the generation has moved past `seen`, at the deadline, or on cancellation,
    /// whichever comes first. Returns whether it moved.
    @discardableResult
    public func wait(beyond seen: UInt64, until deadline: ContinuousClock.Instant) async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForSignal(beyond: seen) }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
        }
        return generation != seen
    }

    /// Returns once the generation has moved past `seen`, or on cancellation.
    public func wait(beyond seen: UInt64) async {
        await waitForSignal(beyond: seen)
    }

    private func waitForSignal(beyond seen: UInt64) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.generation != seen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
