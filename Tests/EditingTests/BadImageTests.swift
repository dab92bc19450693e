import Editing
import Foundation
import Shared
import Testing

/// Every kind of bad image gets its own clear error (and, since the editor writes nothing, nothing
/// can be left half-written; the daemon's tests check the store side).
@Suite struct BadImageTests {
    let editor = ImageEditor()
    let steps = [FilterStep(filter: "sepia", params: [1])]

    @Test func truncatedJPEG() async {
        await #expect(throws: EditingError.self) { try await editor.render(source: GoldenImage.fixture("truncated.jpg"), steps: steps) }
        await expectKind(.corrupt, "truncated.jpg")
    }

    @Test func corruptJPEG() async {
        await expectKind(.corrupt, "corrupt.jpg")
    }

    @Test func notAnImage() async {
        await expectKind(.unsupported, "not-an-image.jpg")
    }

    /// The fixture is a 74-byte PNG whose header claims 20,000 × 20,000 and whose pixels are not
    /// there: only a refusal from the header can be `tooLarge`; a decode would fail as corrupt (or
    /// take the machine's memory). No clock needed to tell the two apart.
    @Test func hugeImageIsRefusedFromItsHeader() async throws {
        let fixture = GoldenImage.fixture("huge-header.png")
        #expect(try FileManager.default.attributesOfItem(atPath: fixture.path)[.size] as? Int == 74)
        do {
            _ = try await editor.render(source: fixture, steps: steps)
            Issue.record("a 20,000 × 20,000 image was accepted")
        } catch let error {
            #expect(error == .tooLarge(width: 20_000, height: 20_000, limitPixels: 64_000_000))
            #expect(error.description.contains("400 MP"), "\(error)")
        }
    }

    @Test func limitIsConfigurable() async {
        let small = ImageEditor(limits: .init(maxPixels: 1000))
        await #expect(throws: EditingError.tooLarge(width: 96, height: 64, limitPixels: 1000)) {
            try await small.render(source: GoldenImage.fixture("source.png"), steps: steps)
        }
        await #expect(throws: EditingError.tooLarge(width: 96, height: 64, limitPixels: 1000)) {
            try await small.preview(source: GoldenImage.fixture("source.png"), steps: steps, size: 16)
        }
    }

    @Test func missingFileAndDirectory() async {
        await #expect(throws: EditingError.self) { try await editor.render(source: URL(fileURLWithPath: "/nonexistent/x.jpg"), steps: steps) }
        do {
            _ = try await editor.render(source: URL(fileURLWithPath: "/nonexistent/x.jpg"), steps: steps)
        } catch {
            guard case .io(let text) = error else { Issue.record("expected io, got \(error)"); return }
            #expect(text.english.contains("No such file"))
        }
        do {
            _ = try await editor.probe(GoldenImage.fixtures)
            Issue.record("a directory was read as an image")
        } catch {
            guard case .unsupported = error else { Issue.record("expected unsupported, got \(error)"); return }
        }
    }

    enum Kind { case corrupt, unsupported }

    func expectKind(_ kind: Kind, _ fixture: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            _ = try await editor.render(source: GoldenImage.fixture(fixture), steps: steps)
            Issue.record("\(fixture) was accepted", sourceLocation: sourceLocation)
        } catch {
            switch (kind, error) {
            case (.corrupt, .corrupt), (.unsupported, .unsupported): break
            default: Issue.record("\(fixture): expected \(kind), got \(error)", sourceLocation: sourceLocation)
            }
            #expect(!error.description.isEmpty)
        }
    }
}
