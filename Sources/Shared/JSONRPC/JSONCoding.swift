import Foundation

/// The one place that decides how protocol values look on the wire: snake_case keys, ISO-8601 dates,
/// keys sorted so that output is stable (golden tests, diffs, logs).
///
/// The keys are Foundation's own conversions, done by Foundation per key. Remembering each key's
/// conversion behind a `.custom` strategy cost more than it saved: Foundation builds the
/// whole coding path for every key it hands a custom strategy, which was 26 % of the daemon's CPU for a
/// page of 50 photos (perf). Measured side by side (bench 4 and 7, one session): a page 0.815 → 0.773 ms,
/// `daemon.status` at 32 clients 30,590 → 32,101 requests/s with the built-in conversion.
public enum JSONCoding {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
