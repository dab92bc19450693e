import TOMLKit

/// splashd's config file: any valid TOML 1.0, read by TOMLKit (toml++). Tables nest into dotted keys
/// (`[backend]` + `url = …`, `backend.url = …` and `backend = { url = … }` are the same key).
///
/// Every error names the file and line, because a person has to find and fix it. A syntax error
/// carries the line toml++ reports. A key the daemon then refuses (unknown, wrong type, out of range)
/// gets its line from `line(of:)`; TOMLKit keeps no source positions for values, so that asks toml++
/// again, for the shortest run of whole lines from the top that already sets the key.
public struct ConfigFile: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int64)
        case double(Double)
        case bool(Bool)
        case array([Value])
        /// A TOML value no key takes (a date, a time, a table inside an array), by its TOML type name.
        case other(String)
    }

    /// Dotted key → value.
    public let values: [String: Value]
    public let path: String
    private let lines: [Substring]

    public init(path: String, text: String) throws(ConfigError) {
        self.path = path
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(path: path, line: error.source.begin.line, message: error.description)
        } catch {
            throw ConfigError(path: path, line: nil, message: "\(error)")
        }
        var values: [String: Value] = [:]
        Self.flatten(table, prefix: "", into: &values)
        self.values = values
    }

    /// The line that sets `key`: the first line `n` such that lines 1…n already parse and hold it.
    /// Only asked when reporting an error, so that the quadratic cost never touches a good file.
    public func line(of key: String) -> Int? {
        let parts = key.split(separator: ".").map(String.init)
        for count in 1...max(lines.count, 1) {
            let prefix = lines.prefix(count).joined(separator: "\n")
            guard let table = try? TOMLTable(string: prefix) else { continue }
            var node: (any TOMLValueConvertible)? = table
            for part in parts { node = node?.table?[part] }
            if node != nil { return count }
        }
        return nil
    }

    public static func == (lhs: ConfigFile, rhs: ConfigFile) -> Bool {
        lhs.path == rhs.path && lhs.values == rhs.values
    }

    private static func flatten(_ table: TOMLTable, prefix: String, into values: inout [String: Value]) {
        for (key, node) in table {
            let dotted = prefix.isEmpty ? key : "\(prefix).\(key)"
            if let nested = node.table {
                flatten(nested, prefix: dotted, into: &values)
            } else {
                values[dotted] = value(node)
            }
        }
    }

    private static func value(_ node: any TOMLValueConvertible) -> Value {
        switch node.type {
        case .string: return node.string.map(Value.string) ?? .other("string")
        case .int: return node.int.map { .integer(Int64($0)) } ?? .other("integer")
        case .double: return node.double.map(Value.double) ?? .other("float")
        case .bool: return node.bool.map(Value.bool) ?? .other("boolean")
        case .array: return .array(node.array.map { $0.map(value) } ?? [])
        default: return .other(node.type.description)
        }
    }
}

public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var message: String

    public init(path: String, line: Int?, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String {
        line.map { "\(path):\($0): \(message)" } ?? "\(path): \(message)"
    }
}
