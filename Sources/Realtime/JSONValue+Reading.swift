import Shared

// Reading Realtime's loosely typed payloads: nil where the value is of another kind.
extension JSONValue {
    var objectValue: [String: JSONValue]? {
        if case .object(let object) = self { object } else { nil }
    }

    var arrayValue: [JSONValue]? {
        if case .array(let array) = self { array } else { nil }
    }

    var stringValue: String? {
        if case .string(let string) = self { string } else { nil }
    }

    var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .double(let value): Int64(exactly: value)
        default: nil
        }
    }
}
