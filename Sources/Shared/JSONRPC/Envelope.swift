/// The head of an incoming JSON-RPC message: everything but `params`, decoded first so the method is
/// known before its params are decoded into the method's own type.
public struct RequestHead: Decodable, Sendable {
    public var jsonrpc: String?
    public var id: RPCID?
    public var method: String?
    /// Whether the message had an `id` member at all: JSON-RPC answers `"id": null` requests, but not
    /// notifications (no `id` member).
    public var hasID: Bool
    /// The `id` member is present but neither a string, an integer nor null.
    public var idIsInvalid: Bool
    /// Whether the message had a `params` member. Without one, a method's params are those of `{}`,
    /// which the router decodes once per method instead of once per request.
    public var hasParams: Bool

    enum CodingKeys: String, CodingKey { case jsonrpc, id, method, params }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        jsonrpc = try? container.decodeIfPresent(String.self, forKey: .jsonrpc)
        hasID = container.contains(.id)
        id = try? container.decodeIfPresent(RPCID.self, forKey: .id)
        idIsInvalid = hasID && id == nil && ((try? container.decodeNil(forKey: .id)) != true)
        method = try? container.decodeIfPresent(String.self, forKey: .method)
        hasParams = container.contains(.params)
    }
}

/// A request on the wire, with its params decoded into the method's own type.
public struct RequestEnvelope<Params: Codable & Sendable>: Codable, Sendable {
    public var jsonrpc = "2.0"
    public var id: RPCID?
    public var method: String
    public var params: Params?

    public init(id: RPCID?, method: String, params: Params?) {
        self.id = id
        self.method = method
        self.params = params
    }
}

/// A successful response.
public struct ResponseEnvelope<Result: Codable & Sendable>: Codable, Sendable {
    public var jsonrpc = "2.0"
    public var id: RPCID?
    public var result: Result

    public init(id: RPCID?, result: Result) {
        self.id = id
        self.result = result
    }

    enum CodingKeys: String, CodingKey { case jsonrpc, id, result }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jsonrpc, forKey: .jsonrpc)
        try container.encode(id, forKey: .id)  // `"id": null` is required when the id is unknown
        try container.encode(result, forKey: .result)
    }
}

/// An error response.
public struct ErrorEnvelope: Codable, Sendable, Equatable {
    public var jsonrpc = "2.0"
    public var id: RPCID?
    public var error: RPCError

    public init(id: RPCID?, error: RPCError) {
        self.id = id
        self.error = error
    }

    enum CodingKeys: String, CodingKey { case jsonrpc, id, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jsonrpc, forKey: .jsonrpc)
        try container.encode(id, forKey: .id)
        try container.encode(error, forKey: .error)
    }
}

/// A server-to-client notification. The daemon sends only `"method": "event"`.
public struct NotificationEnvelope<Params: Codable & Sendable>: Codable, Sendable {
    public var jsonrpc = "2.0"
    public var method: String
    public var params: Params

    public init(method: String, params: Params) {
        self.method = method
        self.params = params
    }
}

/// What a client reads off the wire before it knows which of the three it got.
public struct IncomingHead: Decodable, Sendable {
    public var id: RPCID?
    public var method: String?
    public var error: RPCError?
}
