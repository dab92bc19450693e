/// `$/cancelRequest`, a notification (a message without `id`), as the Language Server Protocol has it:
/// the client no longer wants the answer to the request with this id. A request of a method that
/// allows it (`cancellable` in `daemon.describe`) still being worked on then ends at once with the
/// error kind `cancelled`; any other request answers as it would have. Either way each request gets
/// exactly one answer, and a cancel for an id the daemon is not working on is ignored.
public enum CancelRequest {
    public static let method = "$/cancelRequest"

    public struct Params: Codable, Sendable, Equatable {
        public var id: RPCID

        public init(id: RPCID) {
            self.id = id
        }
    }

    /// The message, ready to send.
    public static func notification(cancelling id: RPCID) -> RequestEnvelope<Params> {
        RequestEnvelope(id: nil, method: method, params: Params(id: id))
    }
}
