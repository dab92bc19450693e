import Shared
import Synchronization

/// What a handler knows about the connection a request came on: who the peer is, what it came
/// through, and a place to attach subscriptions whose events go back on this connection.
public final class ConnectionContext: Sendable {
    /// What carries the connection's messages.
    public enum Transport: Sendable, Equatable {
        /// The Unix socket (or a test's in-process stand-in for it): the peer's uid was checked.
        case controlSocket
        /// The web gallery's WebSocket: a browser holding a session cookie of the daemon's.
        case gallery
    }

    public let id: UInt64
    public let peer: PeerCredentials
    public let transport: Transport
    public let sink: NotificationSink
    private let state = Mutex(State())

    private struct State {
        var subscriptions: [Int: @Sendable () -> Void] = [:]
        var closed = false
    }

    public init(id: UInt64, peer: PeerCredentials, transport: Transport = .controlSocket, eventQueueCapacity: Int) {
        self.id = id
        self.peer = peer
        self.transport = transport
        self.sink = NotificationSink(capacity: eventQueueCapacity)
    }

    /// Records a subscription and how to cancel it; cancelled when unsubscribed or when the
    /// connection closes. Returns false if the connection is already closed.
    public func attach(subscription: Int, cancel: @escaping @Sendable () -> Void) -> Bool {
        let accepted = state.withLock { state in
            guard !state.closed else { return false }
            state.subscriptions[subscription] = cancel
            return true
        }
        if !accepted { cancel() }
        return accepted
    }

    /// Cancels one subscription of this connection; false if it has no such subscription.
    public func detach(subscription: Int) -> Bool {
        let cancel = state.withLock { $0.subscriptions.removeValue(forKey: subscription) }
        cancel?()
        return cancel != nil
    }

    public var hasSubscriptions: Bool { state.withLock { !$0.subscriptions.isEmpty } }

    /// Called once when the connection ends: every subscription is cancelled.
    func close() {
        let cancels = state.withLock { state -> [@Sendable () -> Void] in
            state.closed = true
            defer { state.subscriptions = [:] }
            return Array(state.subscriptions.values)
        }
        for cancel in cancels { cancel() }
        sink.finish()
    }
}
