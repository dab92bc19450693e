import Dispatch
import Editing
import Foundation
import Shared

/// Photos drawn for terminals: the file decoded by libvips (shrink-on-load, sRGB, RGBA) into a memory
/// tier of decoded pixels, then drawn by libchafa in the mode the terminal asked for. The public face
/// of this module.
///
/// Work runs on a queue of its own, off Swift's cooperative threads (decoding blocks on the disk;
/// drawing is CPU work of a few milliseconds).
public final class TerminalPictures: Sendable {
    public struct Drawn: Sendable, Equatable {
        public var text: String
        public var columns: Int
        public var rows: Int
        /// Drawn from pixels the memory tier kept (no file was read).
        public var fromMemory: Bool
    }

    public struct Usage: Sendable, Equatable {
        public var entries: Int
        public var bytes: Int64
        public var maxBytes: Int64
        public var hits: Int
        public var misses: Int
    }

    /// A cell's size when the terminal does not say: the common 8 × 16 of a console font.
    public static let defaultCell = (width: 8, height: 16)

    private let limits: ImageEditor.Limits
    private let memory: PixelCache
    /// Concurrent: a contact sheet draws a picture per core (its callers bound how many at once).
    private static let queue = DispatchQueue(label: "splashd.pictures", qos: .userInitiated, attributes: .concurrent)

    /// `memoryBytes`: the memory tier's bound (0: nothing kept).
    public init(limits: ImageEditor.Limits, memoryBytes: Int64) {
        self.limits = limits
        memory = PixelCache(maxBytes: memoryBytes)
    }

    /// `file` drawn to fit inside the room `terminal` gives (capped at TerminalSpec's maximum), its
    /// aspect kept.
    public func draw(file: URL, for terminal: TerminalSpec) async throws(EditingError) -> Drawn {
        let result: Result<Drawn, EditingError> = await withCheckedContinuation { continuation in
            Self.queue.async {
                continuation.resume(returning: Result { () throws(EditingError) -> Drawn in try self.drawNow(file: file, for: terminal) })
            }
        }
        return try result.get()
    }

    public var usage: Usage {
        let usage = memory.usage
        return Usage(entries: usage.entries, bytes: usage.bytes, maxBytes: memory.maxBytes, hits: usage.hits, misses: usage.misses)
    }

    private func drawNow(file: URL, for terminal: TerminalSpec) throws(EditingError) -> Drawn {
        let columns = min(terminal.columns, TerminalSpec.maximumColumns)
        let rows = min(terminal.rows, TerminalSpec.maximumRows)
        let cellWidth = terminal.cellWidth ?? Self.defaultCell.width
        let cellHeight = terminal.cellHeight ?? Self.defaultCell.height
        // Pixel modes draw every pixel of the room; symbols take about 8 × 16 samples a cell.
        let pixelMode = terminal.mode != .symbols
        let box = (
            width: columns * (pixelMode ? cellWidth : Self.defaultCell.width),
            height: rows * (pixelMode ? cellHeight : Self.defaultCell.height))

        let key = try Self.key(file, box: box)
        var fromMemory = true
        let pixels: RawPixels
        if let kept = memory.pixels(for: key) {
            pixels = kept
        } else {
            fromMemory = false
            pixels = try PixelReader.rgba(file: file, width: box.width, height: box.height, limits: limits)
            memory.keep(pixels, for: key)
        }
        let fit = ChafaCanvas.fit(
            width: pixels.width, height: pixels.height, columns: columns, rows: rows, cellWidth: cellWidth, cellHeight: cellHeight)
        let canvas = ChafaCanvas(
            columns: fit.columns, rows: fit.rows, cellWidth: cellWidth, cellHeight: cellHeight, mode: terminal.mode,
            colors: terminal.colors ?? .truecolor)
        let text = canvas.draw(rgba: pixels.bytes, width: pixels.width, height: pixels.height)
        return Drawn(text: text, columns: fit.columns, rows: fit.rows, fromMemory: fromMemory)
    }

    /// The file's identity now: its path, size and modification time.
    private static func key(_ file: URL, box: (width: Int, height: Int)) throws(EditingError) -> PixelCache.Key {
        var status = stat()
        guard stat(file.path, &status) == 0 else {
            throw .io("cannot read \(file.path): \(String(cString: strerror(errno)))")
        }
        let modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        return PixelCache.Key(path: file.path, fileBytes: Int64(status.st_size), modified: modified, width: box.width, height: box.height)
    }
}
