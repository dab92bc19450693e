import Foundation
import Shared
import Synchronization

/// One subscriber's bounded queue of events. When the client reads too slowly the queue fills, further
/// events are counted instead of kept, and the next event it does get is preceded by `events.missed`
/// with that count — the daemon's memory never grows with a slow reader.
public final class NotificationSink: Sendable {
    public let capacity: Int
    private let state: Mutex<State>
    private let stream: AsyncStream<EventNotification>
    private let continuation: AsyncStream<EventNotification>.Continuation

    private struct State {
        var queued = 0
        var missed = 0
        var lastMissedSeq: UInt64 = 0
    }

    public init(capacity: Int) {
        self.capacity = capacity
        self.state = Mutex(State())
        (stream, continuation) = AsyncStream.makeStream(of: EventNotification.self, bufferingPolicy: .unbounded)
    }

    /// Offers one event; returns false when it was dropped because the queue is full.
    @discardableResult
    public func offer(_ notification: EventNotification) -> Bool {
        state.withLock { state in
            if state.queued >= capacity {
                state.missed += 1
                state.lastMissedSeq = notification.seq
                return false
            }
            state.queued += 1
            continuation.yield(notification)
            return true
        }
    }

    public func finish() {
        continuation.finish()
    }

    /// The events to write, in order, with `events.missed` inserted where some were dropped.
    func drain(_ write: (EventNotification) async throws -> Void) async throws {
        for await notification in stream {
            let missed: (count: Int, seq: UInt64)? = state.withLock { state in
                state.queued -= 1
                guard state.missed > 0 else { return nil }
                defer { state.missed = 0 }
                return (state.missed, state.lastMissedSeq)
            }
            try await write(notification)
            if let missed {
                try await write(EventNotification(seq: missed.seq, time: notification.time, event: .eventsMissed(count: missed.count)))
            }
        }
    }

    /// `drain`, each event as the JSON-RPC notification a client reads (one JSON text, no newline).
    func drainMessages(_ write: (Data) async throws -> Void) async throws {
        let encoder = JSONCoding.encoder()
        try await drain { notification in
            try await write(try encoder.encode(NotificationEnvelope(method: EventNotification.method, params: notification)))
        }
    }

    /// Events dropped and not yet reported (for tests and status).
    public var pendingMissed: Int { state.withLock { $0.missed } }
}
