/// A JSON-RPC request id: a string or an integer. (JSON-RPC also allows fractional numbers; they are
/// discouraged by the spec and refused here as an invalid request, so ids round-trip exactly.)
public enum RPCID: Hashable, Sendable, Codable, CustomStringConvertible {
    case number(Int64)
    case string(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int64.self) {
            self = .number(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        }
    }

    public var isNumber: Bool {
        if case .number = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .number(let value): String(value)
        case .string(let value): "\"\(value)\""
        }
    }
}
