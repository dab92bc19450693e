import Foundation
import Synchronization

/// The one place that decides how protocol values look on the wire: snake_case keys, ISO-8601 dates,
/// keys sorted so that output is stable (golden tests, diffs, logs).
///
/// The keys are Foundation's own snake_case conversions, remembered: Foundation converts every key of
/// every value it encodes anew (a scan of Unicode properties per character), which was a tenth of the
/// daemon's time answering a page of 50 photos (issue 19). Each distinct key is converted once, by
/// Foundation, and looked up after.
public enum JSONCoding {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .custom { path in SnakeCaseKeys.shared.encoded(path.last!) }
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in SnakeCaseKeys.shared.decoded(path.last!) }
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// Foundation's `.convertToSnakeCase` and `.convertFromSnakeCase`, each key converted once.
final class SnakeCaseKeys: Sendable {
    static let shared = SnakeCaseKeys()

    private let toSnake = Mutex<[String: String]>([:])
    private let fromSnake = Mutex<[String: String]>([:])

    func encoded(_ key: any CodingKey) -> any CodingKey { Self.remembered(key, in: toSnake, convert: Self.foundationSnakeCase) }

    func decoded(_ key: any CodingKey) -> any CodingKey { Self.remembered(key, in: fromSnake, convert: Self.foundationCamelCase) }

    /// `key` converted by `convert` the first time its name is seen, and looked up after (array
    /// indexes pass as they are).
    private static func remembered(_ key: any CodingKey, in cache: borrowing Mutex<[String: String]>, convert: (String) -> String) -> any CodingKey {
        if key.intValue != nil { return key }
        let name = key.stringValue
        if let known = cache.withLock({ $0[name] }) { return WireKey(name: known) }
        let converted = convert(name)
        cache.withLock { $0[name] = converted }
        return WireKey(name: converted)
    }

    /// What `.convertToSnakeCase` makes of `name`: one key encoded by Foundation, read back.
    static func foundationSnakeCase(_ name: String) -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        guard let data = try? encoder.encode(OneKey(name: name)),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Bool],
              let converted = object.keys.first else { return name }
        return converted
    }

    /// What `.convertFromSnakeCase` makes of `name`: one key decoded by Foundation, as it saw it.
    static func foundationCamelCase(_ name: String) -> String {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        guard let data = try? JSONSerialization.data(withJSONObject: [name: true]),
              let seen = try? decoder.decode(SeenKey.self, from: data) else { return name }
        return seen.name
    }

    private struct WireKey: CodingKey {
        let name: String
        var stringValue: String { name }
        var intValue: Int? { nil }
        init(name: String) { self.name = name }
        init?(stringValue: String) { name = stringValue }
        init?(intValue: Int) { nil }
    }

    private struct OneKey: Encodable {
        let name: String
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: WireKey.self)
            try container.encode(true, forKey: WireKey(name: name))
        }
    }

    private struct SeenKey: Decodable {
        let name: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: WireKey.self)
            name = container.allKeys.first?.name ?? ""
        }
    }
}
