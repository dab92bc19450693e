/// A JSON-RPC error object. `data.kind` says what went wrong for machines; `message` says it for people.
public struct RPCError: Error, Hashable, Sendable, Codable {
    public var code: Int
    public var message: String
    public var data: Details?

    public struct Details: Hashable, Sendable, Codable {
        public var kind: ErrorKind
        /// Seconds until a retry can succeed (rate limits, busy).
        public var retryAfter: Double?
        /// The offending parameter or field, when there is one.
        public var field: String?

        public init(kind: ErrorKind, retryAfter: Double? = nil, field: String? = nil) {
            self.kind = kind
            self.retryAfter = retryAfter
            self.field = field
        }
    }

    public init(code: Int, message: String, data: Details?) {
        self.code = code
        self.message = message
        self.data = data
    }

    public init(_ kind: ErrorKind, _ message: String, field: String? = nil, retryAfter: Double? = nil) {
        self.init(code: kind.code, message: message, data: Details(kind: kind, retryAfter: retryAfter, field: field))
    }

    public var kind: ErrorKind? { data?.kind }

    public static func invalidInput(_ message: String, field: String? = nil) -> RPCError {
        RPCError(.invalidInput, message, field: field)
    }
}
