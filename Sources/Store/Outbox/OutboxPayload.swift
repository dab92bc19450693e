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

    /// A batch of payloads of one type, read as one JSON array by one decoder: a push batch of 500 ops
    /// paid a decoder's setup and a parse per op. Throws if any of them does not read (`decode`, one by
    /// one, finds which); a payload that is more than one value cannot pass for several ops.
    public static func decodeAll<T: Decodable>(_ type: T.Type, from jsons: [String]) throws -> [T] {
        var array = "["
        array.reserveCapacity(jsons.reduce(2) { $0 + $1.utf8.count + 1 })
        for (index, json) in jsons.enumerated() {
            if index > 0 { array += "," }
            array += json
        }
        array += "]"
        let values = try decoder().decode([T].self, from: Data(array.utf8))
        guard values.count == jsons.count else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "\(jsons.count) payloads read as \(values.count) values"))
        }
        return values
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
