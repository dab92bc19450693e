import Editing
import Foundation
import Shared
import Testing

@Suite struct PerceptualHashTests {
    let limits = ImageEditor.Limits()

    @Test func nearDuplicatesAreCloseAndDifferentPicturesAreFar() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("phash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let editor = ImageEditor()
        let source = GoldenImage.fixture("source.png")
        let original = try PerceptualHash.of(file: source, limits: limits)

        // A re-encode as JPEG, a brighter copy, a rotated copy that displays upright: near.
        let reencoded = directory.appendingPathComponent("copy.jpg")
        try (try await editor.render(source: source, steps: [])).jpeg.write(to: reencoded)
        let brighter = directory.appendingPathComponent("brighter.jpg")
        try (try await editor.render(source: source, steps: [.init(filter: "color", params: [0.05, 1, 1])])).jpeg.write(to: brighter)
        for near in [reencoded, brighter, GoldenImage.fixture("rotated.jpg")] {
            let distance = try PerceptualHash.of(file: near, limits: limits).distance(to: original)
            #expect(distance <= 8, "\(near.lastPathComponent) is \(distance) bits away")
        }

        // Inverted, or pixellated beyond recognition: far.
        let inverted = directory.appendingPathComponent("inverted.jpg")
        try (try await editor.render(source: source, steps: [.init(filter: "invert")])).jpeg.write(to: inverted)
        let distance = try PerceptualHash.of(file: inverted, limits: limits).distance(to: original)
        #expect(distance > 20, "an inverted copy is only \(distance) bits away")
    }

    @Test func hexRoundTrip() {
        let hash = PerceptualHash(value: 0x00ab_cdef_0123_4567)
        #expect(hash.description == "00abcdef01234567")
        #expect(PerceptualHash(hex: hash.description) == hash)
        #expect(hash.distance(to: PerceptualHash(value: 0x00ab_cdef_0123_4566)) == 1)
    }
}
