@testable import Editing
import Foundation
import Shared
import Testing

/// Every filter of the catalogue rendered on one committed picture and compared with its reference.
@Suite struct FilterRenderingTests {
    let editor = ImageEditor()
    let source = GoldenImage.fixture("source.png")

    static let cases: [String] = FilterCatalog.all.map(\.name) + [
        "sepia:0.3", "color:0.1,1.5,0.2", "exposure:-1", "blur:2", "sharpen:2", "vignette:-0.8,0.4", "pixellate:5",
        "sepia:0.8 vignette:1.0,0.6", "mono blur:1.5 invert", "chrome fade noir",
    ]

    @Test(arguments: cases)
    func matchesItsReference(_ pipeline: String) async throws {
        let steps = try FilterCatalog.resolve(pipeline.split(separator: " ").map { try FilterStep(parsing: String($0)) })
        let rendered = try await editor.render(source: source, steps: steps)
        #expect(rendered.width == 96 && rendered.height == 64)
        try GoldenImage.check(rendered, name: pipeline.replacingOccurrences(of: " ", with: "+"))
    }

    @Test func filtersChangeThePicture() async throws {
        // The references themselves must not be the original: a filter that did nothing would match
        // a reference made by the same do-nothing code.
        let original = try await editor.render(source: source, steps: [])
        let originalPixels = try PixelReader.rgb(encoded: original.jpeg)
        for name in FilterCatalog.all.map(\.name) {
            // Colour controls at their defaults are the identity, on purpose; move one of them.
            let steps = try FilterCatalog.resolve([FilterStep(filter: name, params: name == "color" ? [0.2] : nil)])
            let rendered = try await editor.render(source: source, steps: steps)
            let difference = Difference(originalPixels, try PixelReader.rgb(encoded: rendered.jpeg))
            #expect(difference.mean > 3, "\(name) barely changes the picture (mean difference \(difference.mean))")
        }
    }

    @Test func knownPixelsComeOutAsTheMathSays() async throws {
        // The light grey square (240, 240, 240) at (10...30, 10...30): invert makes it near black,
        // sepia gives (324, 289, 225) before clipping, mono keeps it grey.
        func centre(_ pipeline: [FilterStep]) async throws -> [Int] {
            let rendered = try await editor.render(source: source, steps: try FilterCatalog.resolve(pipeline))
            let pixels = try PixelReader.rgb(encoded: rendered.jpeg)
            return (0..<3).map { Int(pixels.value(x: 20, y: 20, band: $0)) }
        }
        let inverted = try await centre([FilterStep(filter: "invert")])
        #expect(inverted.allSatisfy { $0 <= 25 }, "\(inverted)")
        let sepia = try await centre([FilterStep(filter: "sepia")])
        #expect(abs(sepia[0] - 255) <= 4 && abs(sepia[1] - 255) <= 6 && abs(sepia[2] - 225) <= 6, "\(sepia)")
        // The vignette leaves the middle and halves the far corner: (0, 0, 204) becomes about (0, 0, 105).
        let vignette = try FilterCatalog.resolve([FilterStep(filter: "vignette")])
        let vignetted = try PixelReader.rgb(encoded: try await editor.render(source: source, steps: vignette).jpeg)
        #expect(abs(Int(vignetted.value(x: 0, y: 0, band: 2)) - 105) <= 12, "\(vignetted.value(x: 0, y: 0, band: 2))")
        let mono = try await centre([FilterStep(filter: "mono")])
        #expect(mono.allSatisfy { abs($0 - 240) <= 5 }, "\(mono)")
    }

    @Test func orientationIsApplied() async throws {
        // rotated.jpg is the same picture stored 64 × 96 with EXIF orientation 6.
        let rendered = try await editor.render(source: GoldenImage.fixture("rotated.jpg"), steps: [])
        #expect(rendered.width == 96 && rendered.height == 64)
        let upright = try await editor.render(source: source, steps: [])
        let difference = Difference(try PixelReader.rgb(encoded: upright.jpeg), try PixelReader.rgb(encoded: rendered.jpeg))
        // Not zero: rotated.jpg went through a JPEG encoder with chroma subsampling, which smears the
        // fixture's one-pixel stripes. A wrong orientation differs by far more (checked below).
        #expect(difference.mean < 12, "mean difference \(difference.mean)")
        let unrotated = try await editor.render(source: GoldenImage.fixture("rotated.jpg"), steps: [.init(filter: "invert")])
        #expect(Difference(try PixelReader.rgb(encoded: upright.jpeg), try PixelReader.rgb(encoded: unrotated.jpeg)).mean > 40)
    }

    @Test func previewIsSmallAndLooksLikeTheEdit() async throws {
        let steps = try FilterCatalog.resolve([FilterStep(filter: "sepia"), FilterStep(filter: "pixellate", params: [16])])
        let preview = try await editor.preview(source: source, steps: steps, size: 48)
        #expect(max(preview.width, preview.height) == 48)
        #expect(preview.width == 48 && preview.height == 32)
        // The full edit shrunk to the preview's size is close to the preview.
        let full = try await editor.render(source: source, steps: steps)
        let fullPixels = try PixelReader.rgb(encoded: full.jpeg)
        let previewPixels = try PixelReader.rgb(encoded: preview.jpeg)
        var total = 0
        for y in 0..<32 {
            for x in 0..<48 {
                for band in 0..<3 {
                    total += abs(Int(previewPixels.value(x: x, y: y, band: band)) - Int(fullPixels.value(x: x * 2, y: y * 2, band: band)))
                }
            }
        }
        let mean = Double(total) / Double(48 * 32 * 3)
        #expect(mean < 20, "preview and edit differ by \(mean) on average")
    }

    @Test func colourTransformsComposeAsApplyingInTurn() {
        let a = ColourTransform.of("sepia", [0.7])!, b = ColourTransform.of("color", [0.1, 1.4, 0.5])!
        let pixel: [Double] = [200, 120, 30]
        let composed = a.then(b).apply(pixel)
        let stepwise = b.apply(a.apply(pixel))
        for (x, y) in zip(composed, stepwise) { #expect(abs(x - y) < 1e-9) }
        #expect(ColourTransform.of("sepia", [0])! == .identity)
        let twice = ColourTransform.invert.then(.invert).apply(pixel)
        for (x, y) in zip(twice, pixel) { #expect(abs(x - y) < 1e-9) }
    }
}
