import Foundation

/// A bidirectional stream of JSON-RPC lines. The typed client works over any of them: a Unix socket
/// in splashctl, an in-process connection to a router in tests.
public protocol RPCConnection: Sendable {
    /// Writes one message (without its newline).
    func write(_ line: Data) async throws
    /// The next message, or nil when the other side closed.
    func read() async throws -> Data?
    /// Sends one short message at once, from any thread, while a `read` may be waiting for an answer:
    /// a `$/cancelRequest` for the request whose answer is awaited. Errors are dropped: the answer
    /// being read says what became of the request either way.
    func writeWhileReading(_ line: Data)
    func close() async
}
