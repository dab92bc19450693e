import Foundation

/// How an op's payload is written into the outbox and read back: JSON with sorted keys and dates in
/// ISO 8601 with milliseconds. Milliseconds, because a like's time travels to the server and back to
/// every device; whole seconds (Foundation's `.iso8601`) cut it, so a device could not tell its own
/// like from another device's made earlier in the same second, and likes made in one second would
/// sort by chance. Payloads queued by earlier versions, in whole seconds, still read.
public enum OutboxPayload {
    public static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(withMilliseconds.format(date))
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from json: String) throws -> T {
        try decoder().decode(type, from: Data(json.utf8))
    }

    private static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = (try? withMilliseconds.parse(text)) ?? (try? wholeSeconds.parse(text)) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return date
        }
        return decoder
    }

    private static let withMilliseconds = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let wholeSeconds = Date.ISO8601FormatStyle()
}
