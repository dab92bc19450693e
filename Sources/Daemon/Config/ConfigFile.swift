/// A parser for the subset of TOML that splashd's config uses: `[table]` headers, `key = value` with
/// basic or literal strings, integers, floats and booleans, and `#` comments. Every error names the
/// file and line, because a person has to find and fix it.
public struct ConfigFile: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int64)
        case double(Double)
        case bool(Bool)
    }

    /// `table.key` → value and the line it was on.
    public var values: [String: (value: Value, line: Int)] { entries }
    private var entries: [String: (value: Value, line: Int)] = [:]
    public let path: String

    public static func == (lhs: ConfigFile, rhs: ConfigFile) -> Bool {
        lhs.path == rhs.path && lhs.entries.mapValues(\.value) == rhs.entries.mapValues(\.value)
    }

    public init(path: String, text: String) throws(ConfigError) {
        self.path = path
        var table = ""
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = Self.stripComment(rawLine).trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), !line.hasPrefix("[["), line.count > 2 else {
                    throw ConfigError(path: path, line: number, message: "a table header looks like [name]")
                }
                table = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                guard Self.isBareKey(table) else {
                    throw ConfigError(path: path, line: number, message: "table name '\(table)' may hold only letters, digits, '_' and '-'")
                }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigError(path: path, line: number, message: "expected 'key = value'")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let rawValue = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard Self.isBareKey(key) else {
                throw ConfigError(path: path, line: number, message: "key '\(key)' may hold only letters, digits, '_' and '-'")
            }
            let fullKey = table.isEmpty ? key : "\(table).\(key)"
            guard entries[fullKey] == nil else {
                throw ConfigError(path: path, line: number, message: "'\(fullKey)' is set twice (first on line \(entries[fullKey]!.line))")
            }
            do {
                entries[fullKey] = (try Self.parseValue(rawValue), number)
            } catch let message {
                throw ConfigError(path: path, line: number, message: "\(fullKey): \(message.text)")
            }
        }
    }

    struct Message: Error { let text: String }

    static func parseValue(_ text: String) throws(Message) -> Value {
        if text.isEmpty { throw Message(text: "a value is missing after '='") }
        if text == "true" { return .bool(true) }
        if text == "false" { return .bool(false) }
        if text.hasPrefix("\"") { return .string(try parseBasicString(text)) }
        if text.hasPrefix("'") {
            guard text.count >= 2, text.hasSuffix("'"), !text.dropFirst().dropLast().contains("'") else {
                throw Message(text: "unterminated literal string")
            }
            return .string(String(text.dropFirst().dropLast()))
        }
        let digits = text.replacingOccurrences(of: "_", with: "")
        if let integer = Int64(digits) { return .integer(integer) }
        if let double = Double(digits), digits.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) { return .double(double) }
        throw Message(text: "'\(text)' is not a string, number or boolean (strings need quotes)")
    }

    static func parseBasicString(_ text: String) throws(Message) -> String {
        var result = ""
        var iterator = text.dropFirst().makeIterator()
        while let character = iterator.next() {
            switch character {
            case "\"":
                let rest = String(IteratorSequence(iterator))
                guard rest.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw Message(text: "unexpected text after the closing quote")
                }
                return result
            case "\\":
                switch iterator.next() {
                case "\"": result.append("\"")
                case "\\": result.append("\\")
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case let other: throw Message(text: "unsupported escape '\\\(other.map(String.init) ?? "")'")
                }
            default:
                result.append(character)
            }
        }
        throw Message(text: "unterminated string")
    }

    static func stripComment(_ line: Substring) -> String {
        var inBasic = false, inLiteral = false, escaped = false
        for index in line.indices {
            let character = line[index]
            if escaped { escaped = false; continue }
            switch character {
            case "\\" where inBasic: escaped = true
            case "\"" where !inLiteral: inBasic.toggle()
            case "'" where !inBasic: inLiteral.toggle()
            case "#" where !inBasic && !inLiteral: return String(line[..<index])
            default: break
            }
        }
        return String(line)
    }

    static func isBareKey(_ key: String) -> Bool {
        !key.isEmpty && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
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

import Foundation
