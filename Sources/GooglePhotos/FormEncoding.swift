import Foundation

/// `application/x-www-form-urlencoded` and query components for Google's endpoints: RFC 3986's
/// unreserved characters kept, everything else percent-encoded.
enum FormEncoding {
    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    static func encoded(_ pairs: [(String, String)]) -> String {
        pairs.map { escaped($0.0) + "=" + escaped($0.1) }.joined(separator: "&")
    }

    private static let unreserved: CharacterSet = {
        var set = CharacterSet()
        set.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return set
    }()
}
