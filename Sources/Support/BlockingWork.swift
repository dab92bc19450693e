import Foundation

/// Runs work that blocks — a walk of a directory, a long store transaction — on a thread of its own
/// instead of one of Swift concurrency's cooperative threads. There are only as many of those as cores
/// (two on the machines this runs on), and each one a service holds is one the control socket, the
/// sync engine and the start itself cannot use: the Pictures folder's first reconcile over 10,000 liked
/// photos held one for ~100 ms at every start, and READY=1 came at 130–170 ms instead of 40. A thread
/// per piece, not Dispatch's global queue: that one adds threads for blocked work only as its monitor
/// ticks (four pieces took two seconds to all start, on two cores).
public func blockingWork<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
        Thread { done.resume(returning: work()) }.start()
    }
}
