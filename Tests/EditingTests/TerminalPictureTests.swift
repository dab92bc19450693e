import Editing
import Foundation
import Pictures
import Shared
import Testing

/// Photos drawn for terminals with libchafa (and the memory tier).
/// Symbol mode is compared with a golden text at a fixed size from the fixture; the graphics
/// protocols are checked for their structure and the size their payload says.
@Suite struct TerminalPictureTests {
    let pictures = TerminalPictures(limits: .init(), memoryBytes: 1 << 20)
    let source = GoldenImage.fixture("source.png")

    /// `UPDATE_GOLDEN=1` rewrites it; look at it with `cat` before committing.
    @Test func symbolsAtAFixedSizeMatchTheGoldenText() async throws {
        let drawn = try await pictures.draw(file: source, for: TerminalSpec(mode: .symbols, columns: 24, rows: 8, cellWidth: 8, cellHeight: 16))
        // 96 × 64 pixels in cells twice as tall as wide: 24 columns take 24 × 8 = 192 pixels wide, so 8 rows
        // would be 128 × 2 tall — the aspect keeps 24 × 8.
        #expect(drawn.columns == 24 && drawn.rows == 8, "\(drawn.columns)×\(drawn.rows)")
        let lines = drawn.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 8, "every row is a line: \(lines.count)")
        #expect(drawn.text.contains("\u{1B}[38;2;"), "truecolor foreground")
        let golden = GoldenImage.directory.appendingPathComponent("picture-symbols-24x8.txt")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try Data(drawn.text.utf8).write(to: golden)
        } else {
            #expect(drawn.text == (try String(contentsOf: golden, encoding: .utf8)), "differs from Golden/picture-symbols-24x8.txt")
        }
    }

    /// NO_COLOR: shapes only, not one colour sequence.
    @Test func noColourDrawsShapesWithoutColourSequences() async throws {
        let drawn = try await pictures.draw(file: source, for: TerminalSpec(mode: .symbols, columns: 24, rows: 8, colors: TerminalSpec.Colors.none))
        #expect(!drawn.text.contains("38;2;") && !drawn.text.contains("48;2;") && !drawn.text.contains("38;5;"))
        #expect(drawn.text.unicodeScalars.contains { $0.value >= 0x2580 && $0.value <= 0x259F || $0.value > 0x7F }, "symbols drawn")
    }

    /// kitty: one APC graphics command, `f=32` RGBA (or `f=24`), its pixel size in `s=`/`v=`, base64 that
    /// decodes; sixel: DCS q … ST; iTerm2: OSC 1337 File=… with an image that decodes.
    @Test func graphicsProtocolsHaveTheirStructure() async throws {
        let spec = { (mode: TerminalSpec.Mode) in TerminalSpec(mode: mode, columns: 12, rows: 4, cellWidth: 10, cellHeight: 20) }
        let kitty = try await pictures.draw(file: source, for: spec(.kitty)).text
        #expect(kitty.hasPrefix("\u{1B}_G") && kitty.contains("\u{1B}\\"), "\(kitty.prefix(40).debugDescription)")
        let header = kitty.dropFirst(3).prefix { $0 != ";" }
        let fields = Dictionary(uniqueKeysWithValues: header.split(separator: ",").compactMap { field -> (String, String)? in
            let parts = field.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        })
        #expect(fields["a"] == "T" && ["24", "32"].contains(fields["f"] ?? ""), "\(fields)")
        let width = Int(fields["s"] ?? "") ?? 0, height = Int(fields["v"] ?? "") ?? 0
        #expect(width > 0 && width <= 120 && height > 0 && height <= 80, "\(width)×\(height) inside 12 × 10 by 4 × 20 pixels")

        let sixel = try await pictures.draw(file: source, for: spec(.sixel)).text
        #expect(sixel.hasPrefix("\u{1B}P") && sixel.contains("q") && sixel.hasSuffix("\u{1B}\\"), "\(sixel.prefix(20).debugDescription)")
        // Raster attributes after the q: "Pan;Pad;Ph;Pv — the image's width and height in pixels.
        let raster = try #require(sixel.split(separator: "q", maxSplits: 1).last?.dropFirst().prefix { $0 != "#" })
        let sizes = raster.split(separator: ";").compactMap { Int($0) }
        #expect(sizes.count == 4 && sizes[2] > 0 && sizes[2] <= 120 && sizes[3] > 0 && sizes[3] <= 80, "\(raster)")

        let iterm = try await pictures.draw(file: source, for: spec(.iterm)).text
        #expect(iterm.hasPrefix("\u{1B}]1337;File="), "\(iterm.prefix(30).debugDescription)")
        let payload = try #require(iterm.split(separator: ":", maxSplits: 1).last?.prefix { $0 != "\u{07}" && $0 != "\u{1B}" })
        let image = try PixelReader.rgb(encoded: try #require(Data(base64Encoded: String(payload))))
        #expect(image.width > 0 && image.width <= 120 && image.height > 0 && image.height <= 80, "\(image.width)×\(image.height)")
    }

    /// The memory tier: the second draw of the same file at the same size reads no file; another size,
    /// or the file replaced, decodes again; the tier stays inside its bound.
    @Test func theMemoryTierServesRepeatedDrawsAndStaysBounded() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pictures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("a.png")
        try FileManager.default.copyItem(at: source, to: copy)
        // 64 KiB: one 24 × 8-cell picture (192 × 128 px box → 96 × 64 RGBA = 24 KiB) fits twice, not three times.
        let small = TerminalPictures(limits: .init(), memoryBytes: 64 << 10)
        let spec = TerminalSpec(mode: .symbols, columns: 24, rows: 8)
        #expect(try await small.draw(file: copy, for: spec).fromMemory == false)
        #expect(try await small.draw(file: copy, for: spec).fromMemory == true)
        #expect(small.usage.hits == 1 && small.usage.misses == 1 && small.usage.entries == 1)

        var other = spec
        other.columns = 12
        #expect(try await small.draw(file: copy, for: other).fromMemory == false, "another size is another entry")
        // Replaced under the same name (another size on disk): decoded again, not drawn stale.
        try FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: GoldenImage.fixture("rotated.jpg"), to: copy)
        #expect(try await small.draw(file: copy, for: spec).fromMemory == false)
        let usage = small.usage
        #expect(usage.bytes <= 64 << 10 && usage.entries == 2, "\(usage)")
    }

    /// A large photo's screen copy: 1600 pixels on its longer side, the EXIF orientation applied (the
    /// fixture is stored 2400 × 1600 with orientation 6, its red corner top left); a small photo gets none.
    @Test func aLargePhotoGetsAScreenCopyAndASmallOneNone() async throws {
        let editor = ImageEditor()
        #expect(try await editor.screenRendition(source) == nil, "96 × 64 is drawn from its own file")
        let copy = try #require(try await editor.screenRendition(GoldenImage.fixture("large-rotated.jpg")))
        #expect(copy.height == ScreenRendition.longEdge && (1066...1067).contains(copy.width), "\(copy.width)×\(copy.height)")
        let pixels = try PixelReader.rgb(encoded: copy.jpeg)
        #expect(pixels.width == copy.width && pixels.height == copy.height)
        let corner = (0..<3).map { pixels.value(x: pixels.width - 40, y: 40, band: $0) }
        #expect(corner[0] > 180 && corner[1] < 90 && corner[2] < 90, "turned upright, the red corner is top right: \(corner)")
    }

    /// A picture is drawn from the screen copy when its box needs no more pixels than the copy has, and
    /// from the file when it does (a pixel-mode picture in a huge terminal).
    @Test func aPictureIsDrawnFromTheScreenCopyOnlyWhenTheCopyServes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pictures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let large = GoldenImage.fixture("large-rotated.jpg")
        let copy = directory.appendingPathComponent("large.screen.jpg")
        try #require(try await ImageEditor().screenRendition(large)).jpeg.write(to: copy)

        let symbols = try await pictures.draw(file: large, copy: copy, for: TerminalSpec(mode: .symbols, columns: 80, rows: 24))
        #expect(symbols.copy == copy.path)
        let fromFile = try await pictures.draw(file: large, for: TerminalSpec(mode: .symbols, columns: 80, rows: 24))
        #expect(fromFile.copy == nil && fromFile.columns == symbols.columns && fromFile.rows == symbols.rows)
        let huge = TerminalSpec(mode: .kitty, columns: 300, rows: 100, cellWidth: 10, cellHeight: 20)
        #expect(try await pictures.draw(file: large, copy: copy, for: huge).copy == nil, "a 3000 × 2000 box needs the file")
    }

    /// A 1-column terminal gets a 1-cell picture; a huge one a picture no larger than the cap.
    @Test func tinyAndHugeTerminals() async throws {
        let tiny = try await pictures.draw(file: source, for: TerminalSpec(mode: .symbols, columns: 1, rows: 1))
        #expect(tiny.columns == 1 && tiny.rows == 1 && !tiny.text.isEmpty)
        let huge = try await pictures.draw(file: source, for: TerminalSpec(mode: .symbols, columns: 5000, rows: 5000))
        #expect(huge.columns <= TerminalSpec.maximumColumns && huge.rows <= TerminalSpec.maximumRows, "\(huge.columns)×\(huge.rows)")
        // In kitty's protocol, with the largest cells a terminal may say: the cells still, fewer pixels.
        let pixels = try await pictures.draw(
            file: GoldenImage.fixture("large-rotated.jpg"), for: TerminalSpec(mode: .kitty, columns: 5000, rows: 5000, cellWidth: 256, cellHeight: 512))
        let size = try #require(pixels.text.firstMatch(of: /s=(\d+),v=(\d+),c=(\d+),r=(\d+)/))
        #expect(Int(size.1)! <= TerminalPictures.maximumPixels && Int(size.2)! <= TerminalPictures.maximumPixels, "\(size.0)")
        #expect(Int(size.3)! == pixels.columns && Int(size.4)! == pixels.rows && pixels.columns > 100, "\(size.0)")
    }

    @Test func aDamagedFileSaysWhy() async throws {
        await #expect(throws: EditingError.self) {
            try await pictures.draw(file: GoldenImage.fixture("truncated.jpg"), for: TerminalSpec(mode: .symbols, columns: 10, rows: 4))
        }
    }
}
