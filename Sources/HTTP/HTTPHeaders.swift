import CCurl

/// Response (or request) header fields in arrival order. Names compare case-insensitively, as HTTP requires;
/// a name may occur more than once (`Set-Cookie`, `Link`), so lookups can return every value.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    public private(set) var fields: [(name: String, value: String)]

    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public mutating func add(name: String, value: String) { fields.append((name, value)) }

    /// The first value for `name`, or nil.
    public subscript(name: String) -> String? {
        let key = name.lowercased()
        return fields.first { $0.name.lowercased() == key }?.value
    }

    /// Every value for `name`, in arrival order.
    public func values(for name: String) -> [String] {
        let key = name.lowercased()
        return fields.filter { $0.name.lowercased() == key }.map(\.value)
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}

extension HTTPHeaders {
    /// The `Date` field as seconds since 1970 (its resolution), read by libcurl's date parser (the
    /// three forms RFC 9110 allows); nil when absent or unreadable.
    public var dateSeconds: Int64? {
        guard let text = self["Date"] else { return nil }
        let seconds = text.withCString { curl_getdate($0, nil) }
        return seconds < 0 ? nil : Int64(seconds)
    }
}
