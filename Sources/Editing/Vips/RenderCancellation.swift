internal import CVips
import Synchronization

/// Lets one render be stopped from another thread: cancelled before libvips computes it, it is not
/// computed; cancelled while libvips computes it, the computation is killed (libvips looks at each
/// tile) and the render throws `.cancelled`. A render that finished first keeps its result.
final class RenderCancellation: Sendable {
    private struct State: ~Copyable {
        var cancelled = false
        /// The image a save is computing right now; kept alive by the save itself.
        var computing: VipsPicture?
    }

    private let state = Mutex(State())

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            if let picture = state.computing { splashd_vips_kill(picture.pointer) }
        }
    }

    /// Runs `save`, which computes `picture`, so that `cancel` can stop it.
    func computing<T>(_ picture: VipsPicture, _ save: () throws(EditingError) -> T) throws(EditingError) -> T {
        let started = state.withLock { state in
            if !state.cancelled { state.computing = picture }
            return !state.cancelled
        }
        guard started else { throw .cancelled }
        let result = Result { () throws(EditingError) -> T in try save() }
        let cancelled = state.withLock { state in
            state.computing = nil
            return state.cancelled
        }
        if cancelled, case .failure = result { throw .cancelled }
        return try result.get()
    }
}
