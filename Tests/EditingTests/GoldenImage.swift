import Editing
import Foundation
import Testing

/// Reference renderings beside this source, compared pixel by pixel within a tolerance: JPEG
/// encoders differ by a level or two between library versions, a wrong filter by tens.
/// `UPDATE_GOLDEN=1 swift test --filter EditingTests` rewrites them; review the pictures before
/// committing.
enum GoldenImage {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String) -> URL { fixtures.appendingPathComponent(name) }

    static func check(_ rendered: RenderedImage, name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = directory.appendingPathComponent(name + ".jpg")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try rendered.jpeg.write(to: url)
            return
        }
        let expected = try PixelReader.rgb(encoded: try Data(contentsOf: url))
        let actual = try PixelReader.rgb(encoded: rendered.jpeg)
        let difference = Difference(expected, actual)
        #expect(difference.sameSize, "\(name): \(actual.width)×\(actual.height), expected \(expected.width)×\(expected.height)",
                sourceLocation: sourceLocation)
        #expect(difference.mean <= 1.5 && difference.p99 <= 10,
                "\(name) differs from Golden/\(name).jpg: mean \(difference.mean), 99th percentile \(difference.p99)",
                sourceLocation: sourceLocation)
    }
}

/// Per-channel absolute differences between two decoded images.
struct Difference {
    var sameSize: Bool
    var mean: Double
    var p99: Int

    init(_ a: RawPixels, _ b: RawPixels) {
        sameSize = a.width == b.width && a.height == b.height && a.bands == b.bands
        guard sameSize, !a.bytes.isEmpty else {
            mean = .infinity
            p99 = .max
            return
        }
        let deltas = zip(a.bytes, b.bytes).map { abs(Int($0) - Int($1)) }
        mean = Double(deltas.reduce(0, +)) / Double(deltas.count)
        p99 = deltas.sorted()[deltas.count * 99 / 100]
    }
}
