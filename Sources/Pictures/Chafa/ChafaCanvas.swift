internal import CChafa
import Shared

/// One libchafa canvas, its configuration and symbol map: owned here, released in `deinit`. A canvas
/// draws one picture at one size; nothing in it is shared between threads.
final class ChafaCanvas {
    private let symbols: OpaquePointer
    private let config: OpaquePointer
    private let canvas: OpaquePointer
    let columns: Int
    let rows: Int

    /// A canvas `columns` × `rows` cells, each `cellWidth` × `cellHeight` pixels, drawing in `mode`
    /// with `colors` (symbols only; the graphics protocols carry their own colours).
    init(columns: Int, rows: Int, cellWidth: Int, cellHeight: Int, mode: TerminalSpec.Mode, colors: TerminalSpec.Colors) {
        self.columns = columns
        self.rows = rows
        symbols = chafa_symbol_map_new()
        // Blocks and spaces: what every font has, the look of chafa's and timg's defaults. `none` (NO_COLOR)
        // draws shapes only, so it gets every symbol to draw them with.
        chafa_symbol_map_add_by_tags(symbols, colors == .none ? CHAFA_SYMBOL_TAG_ALL : ChafaSymbolTags(CHAFA_SYMBOL_TAG_BLOCK.rawValue | CHAFA_SYMBOL_TAG_SPACE.rawValue))
        config = chafa_canvas_config_new()
        chafa_canvas_config_set_geometry(config, Int32(columns), Int32(rows))
        chafa_canvas_config_set_cell_geometry(config, Int32(cellWidth), Int32(cellHeight))
        chafa_canvas_config_set_symbol_map(config, symbols)
        chafa_canvas_config_set_pixel_mode(config, Self.pixelMode(mode))
        chafa_canvas_config_set_canvas_mode(config, Self.canvasMode(colors))
        canvas = chafa_canvas_new(config)
    }

    deinit {
        chafa_canvas_unref(canvas)
        chafa_canvas_config_unref(config)
        chafa_symbol_map_unref(symbols)
    }

    /// Draws RGBA pixels (unassociated alpha, rows of `width` × 4 bytes) over the whole canvas and
    /// returns what to write to the terminal.
    func draw(rgba: [UInt8], width: Int, height: Int) -> String {
        rgba.withUnsafeBufferPointer { buffer in
            chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, buffer.baseAddress, Int32(width), Int32(height), Int32(width * 4))
        }
        // The fallback terminal info holds every sequence (vt220, each colour mode, sixel, kitty, iTerm2):
        // the terminal's own was detected by splashctl, which asked for exactly this mode.
        let info = chafa_term_db_get_fallback_info(chafa_term_db_get_default())
        defer { chafa_term_info_unref(info) }
        guard let printed = chafa_canvas_print(canvas, info) else { return "" }
        defer { g_string_free(printed, 1) }
        let length = Int(printed.pointee.len)
        return printed.pointee.str.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
            String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
        }
    }

    /// The cells a picture of `width` × `height` pixels takes inside `columns` × `rows`, its aspect
    /// kept for cells of `cellWidth` × `cellHeight` (libchafa's own arithmetic).
    static func fit(width: Int, height: Int, columns: Int, rows: Int, cellWidth: Int, cellHeight: Int) -> (columns: Int, rows: Int) {
        var fitColumns = Int32(columns), fitRows = Int32(rows)
        chafa_calc_canvas_geometry(
            Int32(width), Int32(height), &fitColumns, &fitRows, Float(cellWidth) / Float(cellHeight), 0, 0)
        return (max(1, Int(fitColumns)), max(1, Int(fitRows)))
    }

    private static func pixelMode(_ mode: TerminalSpec.Mode) -> ChafaPixelMode {
        switch mode {
        case .symbols: CHAFA_PIXEL_MODE_SYMBOLS
        case .sixel: CHAFA_PIXEL_MODE_SIXELS
        case .kitty: CHAFA_PIXEL_MODE_KITTY
        case .iterm: CHAFA_PIXEL_MODE_ITERM2
        }
    }

    private static func canvasMode(_ colors: TerminalSpec.Colors) -> ChafaCanvasMode {
        switch colors {
        case .truecolor: CHAFA_CANVAS_MODE_TRUECOLOR
        case .indexed256: CHAFA_CANVAS_MODE_INDEXED_240
        case .indexed16: CHAFA_CANVAS_MODE_INDEXED_16
        case .none: CHAFA_CANVAS_MODE_FGBG
        }
    }
}
