import Foundation
import Shared

/// One connection whose transport carries whole messages rather than lines (the web gallery's
/// WebSocket): each message in is one JSON-RPC request, answered through the router exactly as a
/// line of the control socket is (`Router.serve`: in order, one at a time, a cancel acted on at
/// once), and the connection's events go out between the answers as notifications. Limits are the transport's (its frame size) and the sink's queue.
public enum MessageSession {
    /// Serves until `incoming` ends (the peer closed) or the task is cancelled; then every
    /// subscription of the connection ends.
    public static func serve<Incoming: AsyncSequence & Sendable>(
        router: Router, context: ConnectionContext, incoming: Incoming, send: @escaping @Sendable (Data) async throws -> Void
    ) async throws where Incoming.Element == Data {
        defer { context.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await context.sink.drainMessages(send) }
            let lines = incoming.map { Router.Line(data: $0, parsed: router.parse(line: $0)) }
            try await router.serve(lines, context: context) { answer in if let answer { try await send(answer) } }
            group.cancelAll()
        }
    }
}
