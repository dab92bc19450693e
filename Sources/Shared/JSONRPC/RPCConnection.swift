import Foundation

/// A bidirectional stream of JSON-RPC lines. The typed client works over any of them: a Unix socket
/// in splashctl, an in-process connection to a router in tests.
public protocol RPCConnection: Sendable {
    /// Writes one message (without its newline).
    func write(_ line: Data) async throws
    /// The next message, or nil when the other side closed.
    func read() async throws -> Data?
    func close() async
}
