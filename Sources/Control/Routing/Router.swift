import Foundation
import Logging
import Shared

/// Maps method names to typed handlers and turns one request line into at most one response line.
/// Everything JSON-RPC about a request (parse, envelope checks, params decoding, validation, error
/// objects) happens here, so handlers see only typed params and return typed results.
public struct Router: Sendable {
    public typealias Handler<R: RPCRequest> = @Sendable (R, ConnectionContext) async throws -> R.Result

    private typealias Route = @Sendable (Data, RPCID?, ConnectionContext) async -> Data
    private var routes: [String: Route] = [:]
    private let logger: Logger
    private let wireError: @Sendable (any Error) -> RPCError?

    /// `wireError` puts the errors handlers throw into the protocol's terms, in one place for every
    /// method; an error it does not know is an internal error, logged.
    public init(logger: Logger, wireError: @escaping @Sendable (any Error) -> RPCError? = { _ in nil }) {
        self.logger = logger
        self.wireError = wireError
    }

    public var methods: [String] { routes.keys.sorted() }

    /// Registers the handler of one method. Registering a method twice is a programming error.
    public mutating func register<R: RPCRequest>(_ type: R.Type, _ handler: @escaping Handler<R>) {
        precondition(routes[R.method] == nil, "\(R.method) registered twice")
        let logger = self.logger
        let wireError = self.wireError
        routes[R.method] = { data, id, context in
            let params: R
            do {
                params = try Self.decodeParams(R.self, from: data)
                try params.validate()
            } catch let error as RPCError {
                return Self.encode(error: error, id: id)
            } catch {
                return Self.encode(error: .invalidInput("invalid params for \(R.method): \(Self.describe(error))"), id: id)
            }
            do {
                let result = try await handler(params, context)
                return try JSONCoding.encoder().encode(ResponseEnvelope(id: id, result: result))
            } catch let error as RPCError {
                return Self.encode(error: error, id: id)
            } catch {
                if let mapped = wireError(error) { return Self.encode(error: mapped, id: id) }
                logger.error("handler failed", metadata: ["splashd_method": "\(R.method)", "splashd_error": "\(error)"])
                return Self.encode(error: RPCError(.internalError, "internal error in \(R.method); see the daemon's log"), id: id)
            }
        }
    }

    /// Answers one line. Returns nil for a notification (a request without an `id` member), which
    /// JSON-RPC says gets no response, not even an error.
    public func handle(line: Data, context: ConnectionContext) async -> Data? {
        let head: RequestHead
        do {
            head = try JSONCoding.decoder().decode(RequestHead.self, from: line)
        } catch DecodingError.typeMismatch(_, let error) where error.codingPath.isEmpty {
            return Self.encode(error: RPCError(.invalidRequest, "a request must be a JSON object (batches are not supported)"), id: nil)
        } catch {
            return Self.encode(error: RPCError(.parseError, "not valid JSON: \(Self.describe(error))"), id: nil)
        }
        if head.idIsInvalid || (head.id?.isNumber == true && !RawIDCheck.idIsIntegerLiteral(in: line)) {
            return Self.encode(error: RPCError(.invalidRequest, "id must be a string, an integer or null"), id: nil)
        }
        guard head.jsonrpc == "2.0" else {
            return head.hasID ? Self.encode(error: RPCError(.invalidRequest, "jsonrpc must be \"2.0\""), id: head.id) : nil
        }
        guard let method = head.method else {
            return head.hasID ? Self.encode(error: RPCError(.invalidRequest, "method is missing or not a string"), id: head.id) : nil
        }
        guard let route = routes[method] else {
            let error = RPCError(.methodNotFound, "unknown method '\(method)'; daemon.describe lists every method")
            return head.hasID ? Self.encode(error: error, id: head.id) : nil
        }
        let response = await route(line, head.id, context)
        return head.hasID ? response : nil
    }

    static func decodeParams<R: RPCRequest>(_ type: R.Type, from data: Data) throws -> R {
        let envelope = try JSONCoding.decoder().decode(RequestEnvelope<R>.self, from: data)
        if let params = envelope.params { return params }
        // Absent params are the same as `{}`: methods whose params are all optional accept it.
        return try JSONCoding.decoder().decode(R.self, from: Data("{}".utf8))
    }

    static func encode(error: RPCError, id: RPCID?) -> Data {
        // Encoding these plain values cannot fail; fall back to a fixed text rather than crash.
        (try? JSONCoding.encoder().encode(ErrorEnvelope(id: id, error: error)))
            ?? Data(#"{"error":{"code":-32603,"message":"internal error"},"id":null,"jsonrpc":"2.0"}"#.utf8)
    }

    /// A decoding error in words a person can act on: where, and what was expected.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ codingPath: [any CodingKey]) -> String {
            let names = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            let text = names.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
            return text.isEmpty ? "the message" : text
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(typeName(type)), found null"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is required"
        case .dataCorrupted(let context):
            if let underlying = context.underlyingError as NSError?, let detail = underlying.userInfo[NSDebugDescriptionErrorKey] as? String {
                return context.codingPath.isEmpty ? detail : "\(path(context.codingPath)): \(detail)"
            }
            return context.codingPath.isEmpty ? context.debugDescription : "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is UInt64.Type, is Int32.Type: "an integer"
        case is Double.Type: "a number"
        case is String.Type: "a string"
        default: String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
