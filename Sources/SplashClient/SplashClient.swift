import Foundation
import Shared

/// The typed client: `try await client.send(StatusRequest())` returns a `DaemonStatus`. Requests go
/// one at a time; event notifications that arrive meanwhile are kept for `nextEvent()`. No background
/// task: every read happens inside a call.
public actor SplashClient {
    private let connection: any RPCConnection
    private var nextID: Int64 = 1
    private var pendingEvents: [EventNotification] = []

    public init(connection: any RPCConnection) {
        self.connection = connection
    }

    public static func connect(socketPath: String) throws(ClientError) -> SplashClient {
        SplashClient(connection: try UnixSocketConnection(path: socketPath))
    }

    /// Sends one request and waits for its answer. Throws `RPCError` when the daemon answers with an
    /// error, `ClientError` when there is no usable answer.
    public func send<R: RPCRequest>(_ request: R) async throws -> R.Result {
        try decode(ResponseEnvelope<R.Result>.self, try await roundTrip(request)).result
    }

    /// The answer's `result` as plain JSON (for `--json`, printed as the daemon sent it).
    public func sendRaw<R: RPCRequest>(_ request: R) async throws -> JSONValue {
        try decode(ResponseEnvelope<JSONValue>.self, try await roundTrip(request)).result
    }

    /// Writes the request and reads until its answer, keeping events that arrive meanwhile. A request
    /// of a method that may be stopped (`R.isCancellable`) whose task is cancelled meanwhile is
    /// cancelled at the daemon too (`$/cancelRequest`), so its work stops; its answer, `cancelled` or
    /// the result that was ready first, is still read.
    private func roundTrip<R: RPCRequest>(_ request: R) async throws -> Data {
        let id = RPCID.number(nextID)
        nextID += 1
        try await connection.write(try JSONCoding.encoder().encode(RequestEnvelope(id: id, method: R.method, params: request)))
        guard R.isCancellable else { return try await answer(to: id) }
        let cancel = try JSONCoding.encoder().encode(CancelRequest.notification(cancelling: id))
        return try await withTaskCancellationHandler {
            try await answer(to: id)
        } onCancel: { [connection] in
            connection.writeWhileReading(cancel)
        }
    }

    private func answer(to id: RPCID) async throws -> Data {
        while true {
            guard let message = try await connection.read() else {
                throw ClientError.connectionLost("the daemon closed the connection")
            }
            let head = try decode(IncomingHead.self, message)
            if head.method == EventNotification.method {
                pendingEvents.append(try decode(NotificationEnvelope<EventNotification>.self, message).params)
                continue
            }
            if let error = head.error { throw error }
            guard head.id == id else {
                throw ClientError.protocolError("an answer to request \(head.id.map(String.init(describing:)) ?? "null") while waiting for \(id)")
            }
            return message
        }
    }

    /// The next event notification, waiting for one if none is buffered; nil when the connection ends.
    public func nextEvent() async throws -> EventNotification? {
        if !pendingEvents.isEmpty { return pendingEvents.removeFirst() }
        while let message = try await connection.read() {
            let head = try decode(IncomingHead.self, message)
            if head.method == EventNotification.method {
                return try decode(NotificationEnvelope<EventNotification>.self, message).params
            }
            if let error = head.error { throw error }
        }
        return nil
    }

    public func close() async {
        await connection.close()
    }

    private func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        do {
            return try JSONCoding.decoder().decode(type, from: data)
        } catch {
            throw ClientError.protocolError("\(error)")
        }
    }
}
