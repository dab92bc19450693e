import CVips
@testable import Editing
import Foundation
import Shared
import Testing

/// A preview whose answer is no longer wanted stops: before libvips computes it, or while it does.
@Suite struct RenderCancellationTests {
    /// 8000 × 8000 pixels, made by libvips from nothing: a save of it runs for seconds, over many tiles.
    static func largePicture() throws -> VipsPicture {
        try picture(width: 8000, height: 8000)
    }

    /// A one-band image of the given size (xyz's coordinates, averaged).
    static func picture(width: Int32, height: Int32) throws -> VipsPicture {
        try VipsRuntime.start()
        return try VipsPicture.make("xyz") { splashd_vips_xyz($0, width, height) }.then("bandmean") { splashd_vips_bandmean($0, $1) }
    }

    @Test func aRenderCancelledBeforeItsSaveDoesNotRun() throws {
        let cancellation = RenderCancellation()
        cancellation.cancel()
        #expect(throws: EditingError.cancelled) {
            try cancellation.computing(try Self.largePicture()) { () throws(EditingError) in Issue.record("the save ran") }
        }
    }

    /// Cancelled once the save is registered and before libvips starts it: the kill reaches the
    /// computation itself, which fails at its first tiles instead of encoding 64 megapixels.
    @Test func aCancelKillsTheComputationItFinds() throws {
        let cancellation = RenderCancellation()
        let working = try ImageEditor.pipeline(try Self.largePicture(), steps: [], scale: 1)
        #expect(throws: EditingError.cancelled) {
            try cancellation.computing(working) { () throws(EditingError) in
                cancellation.cancel()
                var buffer: UnsafeMutableRawPointer?
                var length = 0
                guard splashd_vips_jpegsave_buffer(working.pointer, &buffer, &length, 90, 0) == 0 else {
                    throw .corrupt(VipsRuntime.takeError())
                }
                splashd_vips_free(buffer)
                Issue.record("the save of \(length) bytes ran to its end")
            }
        }
    }

    @Test func aRenderAlreadyCancelledIsNotComputed() throws {
        let cancellation = RenderCancellation()
        cancellation.cancel()
        #expect(throws: EditingError.cancelled) {
            try ImageEditor.render(try Self.largePicture(), steps: [], scale: 1, quality: 90, cancellation: cancellation)
        }
    }

    /// Not cancelled, the same render finishes (so the test above sees the kill, not a render that fails).
    @Test func anUncancelledRenderFinishes() throws {
        let picture = try Self.picture(width: 300, height: 200)
        let rendered = try ImageEditor.render(picture, steps: [], scale: 1, quality: 90, cancellation: RenderCancellation())
        #expect(rendered.width == 300 && rendered.height == 200)
    }

    /// A preview asked for by a task already cancelled never reaches libvips.
    @Test func aPreviewFromACancelledTaskIsNotRendered() async throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/large-rotated.jpg")
        let editor = ImageEditor()
        let outcome = await withTaskGroup(of: Result<RenderedImage, EditingError>.self) { group in
            group.cancelAll()
            group.addTask {
                do throws(EditingError) { return .success(try await editor.preview(source: source, steps: [], size: 256)) } catch { return .failure(error) }
            }
            return await group.next()!
        }
        #expect(throws: EditingError.cancelled) { try outcome.get() }
        let uncancelled = try await editor.preview(source: source, steps: [], size: 256)
        #expect(max(uncancelled.width, uncancelled.height) == 256)
    }
}
