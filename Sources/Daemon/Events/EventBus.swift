import Foundation
import Shared
import Synchronization

/// Fans events out to subscribers. Every state change is applied and published under one lock, and a
/// new subscriber's snapshot is taken under the same lock, so a subscriber sees each change exactly
/// once: either in its snapshot or as an event after it (tailscale's watch-ipn-bus does the same).
public final class EventBus: Sendable {
    public typealias Deliver = @Sendable (EventNotification) -> Void

    private struct Subscriber {
        var types: Set<EventType>?
        var deliver: Deliver
    }

    private struct State {
        var seq: UInt64 = 0
        var nextID = 1
        var subscribers: [Int: Subscriber] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Applies a change and publishes the event it produces, atomically with respect to subscribing.
    /// `change` runs under the bus lock: keep it short and never block in it.
    public func publish(_ change: () -> Event?) {
        state.withLock { state in
            guard let event = change() else { return }
            state.seq += 1
            let notification = EventNotification(seq: state.seq, time: Date(), event: event)
            for subscriber in state.subscribers.values where subscriber.types?.contains(event.type) ?? true {
                subscriber.deliver(notification)
            }
        }
    }

    public func publish(_ event: Event) {
        publish { event }
    }

    /// Registers a subscriber and takes its snapshot in one step.
    public func subscribe<Snapshot>(
        types: Set<EventType>?, snapshot: () -> Snapshot, deliver: @escaping Deliver
    ) -> (id: Int, seq: UInt64, snapshot: Snapshot) {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(types: types, deliver: deliver)
            return (id, state.seq, snapshot())
        }
    }

    public func unsubscribe(_ id: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
    public var currentSeq: UInt64 { state.withLock { $0.seq } }
}
