import Foundation
import Testing

/// The cases an enum declares, read from its source file, so that a list of examples cannot forget one
/// (the message, help and daemon-sentence catalogues' tests compare the two), and the name of a value's case.
enum DeclaredCases {
    /// The names after `case` (and `indirect case`) from `public enum <name>` to `endMarker` (or the
    /// file's end) in `path`, relative to the package's root.
    static func names(of name: String, in path: String, until endMarker: String? = nil) throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        let start = try #require(text.range(of: "public enum \(name)"))
        var body = text[start.upperBound...]
        if let endMarker { body = body[..<(try #require(body.range(of: endMarker))).lowerBound] }
        return Set(body.split(separator: "\n").compactMap { line -> String? in
            var trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("indirect ") { trimmed.removeFirst("indirect ".count) }
            guard trimmed.hasPrefix("case ") else { return nil }
            return String(trimmed.dropFirst(5).prefix { $0.isLetter || $0.isNumber })
        })
    }

    /// The case `value` is (its label when it carries values).
    static func name(of value: Any) -> String {
        Mirror(reflecting: value).children.first?.label ?? String(describing: value)
    }
}
