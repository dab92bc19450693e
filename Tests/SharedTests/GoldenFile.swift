import Foundation
import Testing

/// Golden JSON files beside this source. `UPDATE_GOLDEN=1 swift test` rewrites them; otherwise a
/// difference fails the test, so any change to the wire format is a visible diff in review.
enum GoldenFile {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func check(_ actual: Data, name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = directory.appendingPathComponent(name + ".json")
        let pretty = try prettyPrinted(actual)
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try pretty.write(to: url)
            return
        }
        let expected = try Data(contentsOf: url)
        #expect(String(decoding: pretty, as: UTF8.self) == String(decoding: expected, as: UTF8.self),
                "\(name).json differs; run UPDATE_GOLDEN=1 swift test and review the diff", sourceLocation: sourceLocation)
    }

    static func prettyPrinted(_ data: Data) throws -> Data {
        let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]) + Data("\n".utf8)
    }
}
