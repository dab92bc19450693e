import Foundation
import Support
import Synchronization

/// Where the gallery listens, once it does: the port its server was given (or the kernel chose),
/// or why it could not listen. `web.open` waits here for the server it names.
public final class GalleryAddress: Sendable {
    public enum State: Sendable, Equatable {
        case starting
        case listening(port: Int)
        case failed(reason: String)
    }

    private let state = Mutex(State.starting)
    private let changed = ChangeSignal()

    public init() {}

    public var current: State { state.withLock { $0 } }

    func listening(port: Int) { set(.listening(port: port)) }

    func failed(_ reason: String) { set(.failed(reason: reason)) }

    /// The state once it is no longer `starting`, or `starting` still at the deadline.
    public func settled(within patience: Duration) async -> State {
        let deadline = ContinuousClock.now + patience
        while true {
            let seen = changed.generation
            let now = current
            if now != .starting || ContinuousClock.now >= deadline || Task.isCancelled { return now }
            await changed.wait(beyond: seen, until: deadline)
        }
    }

    private func set(_ new: State) {
        state.withLock { $0 = new }
        changed.signal()
    }
}
