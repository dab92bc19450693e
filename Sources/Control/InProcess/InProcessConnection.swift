#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shared

/// A connection to a router inside the same process, with no socket: tests drive handlers through the
/// exact JSON-RPC path the socket uses (as sourcekit-lsp's LocalConnection does).
public enum InProcessConnection {
    /// Runs `body` with a connection to `router`; events delivered to the connection arrive as
    /// notifications, exactly as on a socket. The connection closes when `body` returns.
    public static func with<T: Sendable>(
        router: Router, peer: PeerCredentials = PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid()),
        eventQueueCapacity: Int = 1024, _ body: @Sendable (any RPCConnection) async throws -> T
    ) async throws -> T {
        let context = ConnectionContext(id: 0, peer: peer, eventQueueCapacity: eventQueueCapacity)
        let channel = InProcessChannel(router: router, context: context)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await context.sink.drainMessages { await channel.push($0) }
                return nil
            }
            defer { context.close() }
            let result = try await body(channel)
            await channel.close()
            group.cancelAll()
            return result
        }
    }
}

/// The in-process side: writes go straight to the router, answers and events queue up for `read`.
actor InProcessChannel: RPCConnection {
    private let router: Router
    private let context: ConnectionContext
    private var buffer: [Data] = []
    private var waiter: CheckedContinuation<Data?, Never>?
    private var closed = false

    init(router: Router, context: ConnectionContext) {
        self.router = router
        self.context = context
    }

    func write(_ line: Data) async throws {
        if let response = await router.handle(line: line, context: context) { push(response) }
    }

    func read() async throws -> Data? {
        if !buffer.isEmpty { return buffer.removeFirst() }
        if closed { return nil }
        return await withCheckedContinuation { waiter = $0 }
    }

    /// Nothing to send: `write` hands a request to the router and returns once it is answered, so no
    /// request is in work by the time its answer is read.
    nonisolated func writeWhileReading(_ line: Data) {}

    func push(_ data: Data) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: data)
        } else {
            buffer.append(data)
        }
    }

    func close() {
        closed = true
        waiter?.resume(returning: nil)
        waiter = nil
    }
}
