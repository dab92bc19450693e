import FoundationEssentials
/// Any JSON value. Used where the protocol carries free-form JSON (examples in `daemon.describe`,
/// the `params` of an envelope before its method is known).
public enum JSONValue: Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Tries the kinds most values are first: each kind tried in vain costs a thrown error with its coding
    /// path, and with booleans and numbers first a string cost four and an object five (a fifth of the
    /// daemon's time reading the Realtime echo of 10,000 pushed likes). A JSON value is one
    /// kind only, so the order changes no result.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else {
            self = .bool(try container.decode(Bool.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The JSON form of any encodable value, through the protocol's own encoder.
    public init(encoding value: some Encodable) throws {
        let data = try JSONCoding.encoder().encode(value)
        self = try JSONCoding.decoder().decode(JSONValue.self, from: data)
    }
}
