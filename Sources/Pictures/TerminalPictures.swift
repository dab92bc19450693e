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
        /// The screen copy it was drawn from (nil: from the file itself).
        public var copy: String?
    }

    public struct Usage: Sendable, Equatable {
        public var entries: Int
        public var bytes: Int64
        public var maxBytes: Int64
        public var hits: Int
        public var misses: Int
    }

    /// The longest side, in pixels, of a picture drawn in a pixel mode (see Room).
    public static let maximumPixels = 2560

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
    /// aspect kept — from `copy`, the file's screen rendition, when the picture needs no more pixels
    /// than the copy has.
    public func draw(file: URL, copy: URL? = nil, for terminal: TerminalSpec) async throws(EditingError) -> Drawn {
        try await run { () throws(EditingError) -> Drawn in
            let room = Room(terminal)
            if let copy, ScreenRendition.serves(boxWidth: room.box.width, boxHeight: room.box.height) {
                var drawn = try self.drawNow(file: copy, in: room, for: terminal)
                drawn.copy = copy.path
                return drawn
            }
            return try self.drawNow(file: file, in: room, for: terminal)
        }
    }

    /// An encoded image (an edit's preview, in memory only) drawn the same way; nothing is kept.
    public func draw(encoded: Data, for terminal: TerminalSpec) async throws(EditingError) -> Drawn {
        try await run { () throws(EditingError) -> Drawn in
            let room = Room(terminal)
            let pixels = try PixelReader.rgba(encoded: encoded, width: room.box.width, height: room.box.height)
            return Self.draw(pixels, in: room, for: terminal, fromMemory: false)
        }
    }

    /// `body` on the pictures' queue, its result or error handed back.
    private func run(_ body: @escaping @Sendable () throws(EditingError) -> Drawn) async throws(EditingError) -> Drawn {
        let result: Result<Drawn, EditingError> = await withCheckedContinuation { continuation in
            Self.queue.async { continuation.resume(returning: Result { () throws(EditingError) -> Drawn in try body() }) }
        }
        return try result.get()
    }

    public var usage: Usage {
        let usage = memory.usage
        return Usage(entries: usage.entries, bytes: usage.bytes, maxBytes: memory.maxBytes, hits: usage.hits, misses: usage.misses)
    }

    /// The room a terminal gives, capped, and the pixels to decode for it.
    private struct Room {
        var columns: Int
        var rows: Int
        var cellWidth: Int
        var cellHeight: Int
        var box: (width: Int, height: Int)

        init(_ terminal: TerminalSpec) {
            columns = min(terminal.columns, TerminalSpec.maximumColumns)
            rows = min(terminal.rows, TerminalSpec.maximumRows)
            cellWidth = terminal.cellWidth ?? TerminalPictures.defaultCell.width
            cellHeight = terminal.cellHeight ?? TerminalPictures.defaultCell.height
            // Pixel modes draw every pixel of the room; symbols take about 8 × 16 samples a cell.
            let pixelMode = terminal.mode != .symbols
            // Pixel modes send every pixel (kitty four bytes each, in base64, in a JSON string): a huge
            // room is drawn at most maximumPixels on its longer side, its cells scaled down alike. The
            // terminal stretches the picture over the same cells (kitty's c= and r=, sixel and iTerm2
            // by their size), so only the resolution goes.
            let longer = max(columns * cellWidth, rows * cellHeight)
            if pixelMode, longer > TerminalPictures.maximumPixels {
                let scale = Double(TerminalPictures.maximumPixels) / Double(longer)
                cellWidth = max(1, Int(Double(cellWidth) * scale))
                cellHeight = max(1, Int(Double(cellHeight) * scale))
            }
            box = (
                width: columns * (pixelMode ? cellWidth : TerminalPictures.defaultCell.width),
                height: rows * (pixelMode ? cellHeight : TerminalPictures.defaultCell.height))
        }
    }

    private func drawNow(file: URL, in room: Room, for terminal: TerminalSpec) throws(EditingError) -> Drawn {
        let key = try Self.key(file, box: room.box)
        if let kept = memory.pixels(for: key) { return Self.draw(kept, in: room, for: terminal, fromMemory: true) }
        let pixels = try PixelReader.rgba(file: file, width: room.box.width, height: room.box.height, limits: limits)
        memory.keep(pixels, for: key)
        return Self.draw(pixels, in: room, for: terminal, fromMemory: false)
    }

    private static func draw(_ pixels: RawPixels, in room: Room, for terminal: TerminalSpec, fromMemory: Bool) -> Drawn {
        let fit = ChafaCanvas.fit(
            width: pixels.width, height: pixels.height, columns: room.columns, rows: room.rows, cellWidth: room.cellWidth,
            cellHeight: room.cellHeight)
        let canvas = ChafaCanvas(
            columns: fit.columns, rows: fit.rows, cellWidth: room.cellWidth, cellHeight: room.cellHeight, mode: terminal.mode,
            colors: terminal.colors ?? .truecolor)
        let text = canvas.draw(rgba: pixels.bytes, width: pixels.width, height: pixels.height)
        return Drawn(text: text, columns: fit.columns, rows: fit.rows, fromMemory: fromMemory, copy: nil)
    }

    /// The file's identity now: its path, size and modification time.
    private static func key(_ file: URL, box: (width: Int, height: Int)) throws(EditingError) -> PixelCache.Key {
        var status = stat()
        guard stat(file.path, &status) == 0 else {
            throw .io(.cannotRead(path: file.path, reason: String(cString: strerror(errno))))
        }
        let modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        return PixelCache.Key(path: file.path, fileBytes: Int64(status.st_size), modified: modified, width: box.width, height: box.height)
    }
}
