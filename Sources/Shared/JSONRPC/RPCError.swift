/// A JSON-RPC error object. `data.kind` says what went wrong for machines; `message` says it for people
/// in English, and `data.text` says the same sentence as data, for clients that speak other languages.
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
        /// The sentence `message` renders, for clients that render it in their own language.
        public var text: DaemonText?

        public init(kind: ErrorKind, retryAfter: Double? = nil, field: String? = nil, text: DaemonText? = nil) {
            self.kind = kind
            self.retryAfter = retryAfter
            self.field = field
            self.text = text
        }

        private enum CodingKeys: String, CodingKey {
            case kind, retryAfter, field, text
        }

        /// A sentence this client does not know (a newer daemon's) decodes as absent: the error still
        /// arrives, and `message` says it in English.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            kind = try container.decode(ErrorKind.self, forKey: .kind)
            retryAfter = try container.decodeIfPresent(Double.self, forKey: .retryAfter)
            field = try container.decodeIfPresent(String.self, forKey: .field)
            text = container.decodeSentenceIfPresent(forKey: .text)
        }
    }

    public init(code: Int, message: String, data: Details?) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// The daemon's errors: `message` is always `text` in English, so the two never disagree.
    public init(_ kind: ErrorKind, _ text: DaemonText, field: String? = nil, retryAfter: Double? = nil) {
        self.init(code: kind.code, message: text.english, data: Details(kind: kind, retryAfter: retryAfter, field: field, text: text))
    }

    public var kind: ErrorKind? { data?.kind }

    public static func invalidInput(_ text: DaemonText, field: String? = nil) -> RPCError {
        RPCError(.invalidInput, text, field: field)
    }
}
