import Dispatch
import Foundation
import Support
import Synchronization
import Testing

@Suite struct BlockingWorkTests {
    /// Twice as many pieces of blocked work as there are cooperative threads all get going, and a task
    /// still runs beside them: none of them holds a cooperative thread. Were they on those threads, the
    /// ones past the thread count would never start and nothing async could run until a timer, on a
    /// Dispatch thread, let them all go: the test then fails instead of hanging.
    @Test func blockedWorkLeavesTheCooperativeThreadsFree() async {
        let pieces = 2 * ProcessInfo.processInfo.activeProcessorCount
        let gate = DispatchSemaphore(value: 0)
        let state = State()
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
            if state.released.withLock({ released in defer { released = true }; return !released }) {
                state.byTimer.withLock { $0 = true }
                for _ in 0..<pieces { gate.signal() }
            }
        }
        await withTaskGroup(of: Int.self) { group in
            for piece in 0..<pieces {
                group.addTask {
                    await blockingWork {
                        state.started.withLock { $0 += 1 }
                        gate.wait()
                        return piece
                    }
                }
            }
            while state.started.withLock({ $0 }) < pieces, !state.byTimer.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(1)) }
            #expect(await Task { "ran" }.value == "ran")
            if state.released.withLock({ released in defer { released = true }; return !released }) {
                for _ in 0..<pieces { gate.signal() }
            }
            var finished: [Int] = []
            for await piece in group { finished.append(piece) }
            #expect(finished.sorted() == Array(0..<pieces))
        }
        #expect(!state.byTimer.withLock { $0 }, "the blocked work held the cooperative threads until the timer let it go")
    }

    private final class State: Sendable {
        let started = Mutex(0)
        let released = Mutex(false)
        let byTimer = Mutex(false)
    }
}
