import Foundation
import Logging
import Shared
import Synchronization

/// Maps method names to typed handlers and turns one request line into at most one response line.
/// Everything JSON-RPC about a request (parse, envelope checks, params decoding, validation, error
/// objects) happens here, so handlers see only typed params and return typed results.
public struct Router: Sendable {
    public typealias Handler<R: RPCRequest> = @Sendable (R, ConnectionContext) async throws -> R.Result

    /// A handler that only reads memory the daemon keeps current (no I/O, no waiting), so that the
    /// connection can answer it on the thread that read the request: see `ImmediateAnswers`.
    public typealias ImmediateHandler<R: RPCRequest> = @Sendable (R) throws -> R.Result

    private typealias Route = @Sendable (RequestLine, ConnectionContext) async -> Data
    private typealias ImmediateRoute = @Sendable (RequestLine) -> Data
    private var routes: [String: Route] = [:]
    private var immediateRoutes: [String: ImmediateRoute] = [:]
    /// Methods `$/cancelRequest` may stop (`RPCRequest.isCancellable`).
    private var cancellable: Set<String> = []
    private let replies: Replies

    /// `wireError` puts the errors handlers throw into the protocol's terms, in one place for every
    /// method; an error it does not know is an internal error, logged.
    public init(logger: Logger, wireError: @escaping @Sendable (any Error) -> RPCError? = { _ in nil }) {
        replies = Replies(logger: logger, wireError: wireError)
    }

    public var methods: [String] { routes.keys.sorted() }

    /// Registers the handler of one method. Registering a method twice is a programming error.
    public mutating func register<R: RPCRequest>(_ type: R.Type, _ handler: @escaping Handler<R>) {
        register(type, encoded: { params, context in
            EncodedResult(json: try JSONCoding.encoder().encode(try await handler(params, context)))
        })
    }

    /// Registers a method whose handler returns its result already in JSON (`EncodedResult`), sent as it is.
    public mutating func register<R: RPCRequest>(
        _ type: R.Type, encoded handler: @escaping @Sendable (R, ConnectionContext) async throws -> EncodedResult<R.Result>
    ) {
        precondition(routes[R.method] == nil, "\(R.method) registered twice")
        let replies = self.replies
        let absent = AbsentParams(R.self)
        if R.isCancellable { cancellable.insert(R.method) }
        routes[R.method] = { request, context in
            switch replies.params(R.self, of: request, absent: absent) {
            case .failure(let failed):
                return failed.reply
            case .success(let params):
                do {
                    return try ResponseLine.success(id: request.id, resultJSON: try await handler(params, context).json)
                } catch where Task.isCancelled && R.isCancellable {
                    // Whatever the domain threw on the way out (an interrupted render, a transfer
                    // stopped), the client asked for this: see `serve`.
                    return Router.encode(error: RPCError(.cancelled, .cancelledByClient(method: R.method)), id: request.id)
                } catch {
                    return replies.encode(handlerError: error, of: R.method, id: request.id)
                }
            }
        }
    }

    /// Registers a method whose handler answers from memory at once. The connection answers it on the
    /// thread that read it when nothing earlier is still being answered, and through the ordinary path
    /// otherwise (and on in-process connections): the same handler, the same answer.
    ///
    /// The result's JSON is kept and used again while the handler returns an equal result: encoding
    /// `daemon.status` was half the daemon's CPU under 32 clients (perf), and its answer
    /// changes only when the daemon's state does.
    public mutating func registerImmediate<R: RPCRequest>(_ type: R.Type, _ handler: @escaping ImmediateHandler<R>) {
        precondition(routes[R.method] == nil, "\(R.method) registered twice")
        let replies = self.replies
        let absent = AbsentParams(R.self)
        let encoded = EncodedResultCache<R.Result>()
        let immediate: ImmediateRoute = { request in
            switch replies.params(R.self, of: request, absent: absent) {
            case .failure(let failed):
                return failed.reply
            case .success(let params):
                do {
                    let json = try encoded.json(for: try handler(params)) { try JSONCoding.encoder().encode($0) }
                    return try ResponseLine.success(id: request.id, resultJSON: json)
                } catch {
                    return replies.encode(handlerError: error, of: R.method, id: request.id)
                }
            }
        }
        immediateRoutes[R.method] = immediate
        routes[R.method] = { request, _ in immediate(request) }
    }

    /// What reading a line's envelope found: a request to route, or the answer already (an error, or
    /// none for a notification that is wrong).
    public enum Parsed: Sendable {
        case request(method: String, id: RPCID?, hasID: Bool, hasParams: Bool)
        case answered(Data?)
        /// `$/cancelRequest` for this id (nil: its params name none); it is never answered.
        case cancel(RPCID?)
    }

    /// The envelope's keys have no underscores, so they need no snake-case conversion, which Foundation
    /// does key by key (a sixth of the daemon's CPU under 32 clients sending `daemon.status`, perf).
    private static let headDecoder = JSONDecoder()

    /// Reads a line's envelope (not its params): the checks every request passes before its method's.
    public func parse(line: Data) -> Parsed {
        let head: RequestHead
        do {
            head = try Self.headDecoder.decode(RequestHead.self, from: line)
        } catch DecodingError.typeMismatch(_, let error) where error.codingPath.isEmpty {
            return .answered(Self.encode(error: RPCError(.invalidRequest, .requestNotAnObject), id: nil))
        } catch {
            return .answered(Self.encode(error: RPCError(.parseError, .notJson(detail: Self.describe(error))), id: nil))
        }
        if head.idIsInvalid || (head.id?.isNumber == true && !RawIDCheck.idIsIntegerLiteral(in: line)) {
            return .answered(Self.encode(error: RPCError(.invalidRequest, .badRequestId), id: nil))
        }
        guard head.jsonrpc == "2.0" else {
            return .answered(head.hasID ? Self.encode(error: RPCError(.invalidRequest, .badJsonrpcVersion), id: head.id) : nil)
        }
        guard let method = head.method else {
            return .answered(head.hasID ? Self.encode(error: RPCError(.invalidRequest, .methodMissing), id: head.id) : nil)
        }
        if method == CancelRequest.method {
            guard !head.hasID else { return .answered(Self.encode(error: RPCError(.invalidRequest, .cancelIsANotification), id: head.id)) }
            let envelope = try? Self.headDecoder.decode(RequestEnvelope<CancelRequest.Params>.self, from: line)
            return .cancel(envelope?.params?.id)
        }
        guard routes[method] != nil else {
            let error = RPCError(.methodNotFound, .unknownMethod(method: method))
            return .answered(head.hasID ? Self.encode(error: error, id: head.id) : nil)
        }
        return .request(method: method, id: head.id, hasID: head.hasID, hasParams: head.hasParams)
    }

    /// Answers one line. Returns nil for a notification (a request without an `id` member), which
    /// JSON-RPC says gets no response, not even an error.
    public func handle(line: Data, context: ConnectionContext) async -> Data? {
        await handle(line: line, parsed: parse(line: line), context: context)
    }

    /// Answers a line whose envelope `parse` has read.
    public func handle(line: Data, parsed: Parsed, context: ConnectionContext) async -> Data? {
        switch parsed {
        case .answered(let response):
            return response
        case .request(let method, let id, let hasID, let hasParams):
            // `parse` found the route.
            let response = await routes[method]!(RequestLine(data: line, id: id, hasParams: hasParams), context)
            return hasID ? response : nil
        case .cancel:
            return nil
        }
    }

    /// The id by which `$/cancelRequest` may stop this request, if its method allows that.
    public func cancellableID(of parsed: Parsed) -> RPCID? {
        guard case .request(let method, let id?, true, _) = parsed, cancellable.contains(method) else { return nil }
        return id
    }

    /// The answer to a line that needs no waiting — an immediate method's, or an envelope's error —
    /// or nil when the line must take the ordinary path. `.some(nil)` is a notification: no answer.
    public func answerImmediately(line: Data, parsed: Parsed) -> Data?? {
        switch parsed {
        case .answered(let response):
            return .some(response)
        case .request(let method, let id, let hasID, let hasParams):
            guard let route = immediateRoutes[method] else { return nil }
            let response = route(RequestLine(data: line, id: id, hasParams: hasParams))
            return .some(hasID ? response : nil)
        case .cancel:
            // Nothing is being answered (see ImmediateAnswers), so there is nothing to stop.
            return .some(nil)
        }
    }

    static func decodeParams<R: RPCRequest>(_ type: R.Type, from data: Data) throws -> R {
        let envelope = try JSONCoding.decoder().decode(RequestEnvelope<R>.self, from: data)
        if let params = envelope.params { return params }
        return try paramsOfEmptyObject(R.self)
    }

    /// A method's params when the request carries none (no `params` member, or `null`): those of `{}`,
    /// which methods whose params are all optional accept.
    static func paramsOfEmptyObject<R: RPCRequest>(_ type: R.Type) throws -> R {
        try JSONCoding.decoder().decode(R.self, from: Data("{}".utf8))
    }

    static func encode(error: RPCError, id: RPCID?) -> Data {
        // Encoding these plain values cannot fail; fall back to a fixed text rather than crash.
        (try? JSONCoding.encoder().encode(ErrorEnvelope(id: id, error: error)))
            ?? Data(#"{"error":{"code":-32603,"message":"internal error"},"id":null,"jsonrpc":"2.0"}"#.utf8)
    }

    /// Params that do not decode, as a sentence: where, and what was expected. What Foundation says
    /// of a corrupt value stays its words.
    static func paramsProblem(_ error: any Error, method: String) -> DaemonText {
        guard let decoding = error as? DecodingError else { return .invalidParams(method: method, detail: describe(error)) }
        switch decoding {
        case .typeMismatch(let type, let context):
            return .paramWrongType(method: method, path: path(context.codingPath), expected: jsonType(type))
        case .valueNotFound(let type, let context):
            return .paramNull(method: method, path: path(context.codingPath), expected: jsonType(type))
        case .keyNotFound(let key, let context):
            return .paramRequired(method: method, path: path(context.codingPath + [key]))
        default:
            return .invalidParams(method: method, detail: describe(error))
        }
    }

    /// Where in the request: `params.photos[2].id`; empty for the request itself.
    private static func path(_ codingPath: [any CodingKey]) -> String {
        let names = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
        return names.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
    }

    /// A decoding error in words a person can act on: where, and what was expected.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = Self.path(codingPath)
            return text.isEmpty ? "the message" : text
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(DaemonText.article(jsonType(type)))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(DaemonText.article(jsonType(type))), found null"
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

    /// The JSON type a Swift type is read from, as DaemonText names it.
    private static func jsonType(_ type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "boolean"
        case is Int.Type, is Int64.Type, is UInt64.Type, is Int32.Type: "integer"
        case is Double.Type: "number"
        case is String.Type: "string"
        default: String(describing: type).hasPrefix("Array") ? "array" : "object"
        }
    }
}

/// How a route turns params, results and errors into response lines, shared by both kinds of route.
private struct Replies: Sendable {
    let logger: Logger
    let wireError: @Sendable (any Error) -> RPCError?

    struct Failed: Error { let reply: Data }

    /// The method's params, decoded and validated, or the error reply saying what is wrong with them.
    func params<R: RPCRequest>(_ type: R.Type, of request: RequestLine, absent: AbsentParams<R>) -> Result<R, Failed> {
        if !request.hasParams, let params = absent.params { return .success(params) }
        let id = request.id
        do {
            let params = try Router.decodeParams(R.self, from: request.data)
            try params.validate()
            return .success(params)
        } catch let error as RPCError {
            return .failure(Failed(reply: Router.encode(error: error, id: id)))
        } catch {
            return .failure(Failed(reply: Router.encode(error: .invalidInput(Router.paramsProblem(error, method: R.method)), id: id)))
        }
    }

    /// A handler's error in the protocol's terms; one the daemon does not know is logged and answered
    /// as an internal error.
    func encode(handlerError error: any Error, of method: String, id: RPCID?) -> Data {
        if let error = error as? RPCError { return Router.encode(error: error, id: id) }
        if let mapped = wireError(error) { return Router.encode(error: mapped, id: id) }
        logger.error("handler failed", metadata: ["splashd_method": "\(method)", "splashd_error": "\(error)"])
        return Router.encode(error: RPCError(.internalError, .internalErrorIn(method: method)), id: id)
    }
}

/// A request line on its way to its route: the bytes, and what `Router.parse` read of its envelope.
struct RequestLine: Sendable {
    let data: Data
    let id: RPCID?
    let hasParams: Bool
}

/// A method's params when the request has no `params` member: those of `{}`, decoded and validated
/// once, at the first such request (not at registration: fifty-odd decodes would delay every start).
/// Nil when `{}` is not valid params for the method; such a request then takes the ordinary path, which
/// answers why.
final class AbsentParams<R: RPCRequest>: Sendable {
    private let decoded = Mutex<R??>(nil)

    var params: R? {
        decoded.withLock { decoded in
            if let known = decoded { return known }
            let params = try? {
                let params = try Router.paramsOfEmptyObject(R.self)
                try params.validate()
                return params
            }()
            decoded = .some(params)
            return params
        }
    }

    init(_ type: R.Type) {}
}
