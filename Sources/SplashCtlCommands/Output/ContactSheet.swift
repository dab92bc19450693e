import CLIText
import Foundation
import Shared
import SplashClient

/// `--grid`: a page of results as a contact sheet, thumbnails in rows sized to the terminal with each
/// photo's id under its picture. Drawn with symbols whatever the terminal: tiles side by side are lines
/// joined with lines, which the graphics protocols (each an image placed at the cursor) do not allow
/// without moving the cursor between them.
enum ContactSheet {
    /// A tile's picture room in cells (about a 4:3 photo in cells twice as tall as wide; wide enough for
    /// an Unsplash id, "unsplash:" and 11 characters) and the gap.
    static let tileColumns = 20
    static let tileRows = 8
    static let gap = 2

    /// The tiles' room, or nil when no picture is drawn (a pipe without a forced mode, --json, none).
    static func terminal(choice: ImageChoice, json: Bool, noColor: Bool) -> TerminalSpec? {
        guard var spec = TerminalGraphics.spec(
            choice: choice == .auto || choice == .none ? choice : .symbols, json: json, isTerminal: Output.isTerminal(.output),
            size: TerminalGraphics.windowSize(), environment: ProcessInfo.processInfo.environment, noColor: noColor)
        else { return nil }
        spec.mode = .symbols
        // `--grid` asked for pictures, in symbols: the daemon's pictures.terminal does not change that.
        spec.detected = nil
        spec.columns = min(tileColumns, spec.columns)
        spec.rows = tileRows
        return spec
    }

    /// Asks the daemon for every picture at once and prints the sheet (a daemon that cannot draw
    /// them leaves the results printed above as they are).
    static func print(ids: [String], global: GlobalOptions, choice: ImageChoice) async throws {
        guard !ids.isEmpty, let terminal = terminal(choice: choice, json: global.json, noColor: global.noColor) else { return }
        let width = TerminalGraphics.windowSize()?.columns ?? 80
        try await global.withClient { client in
            var pictures: [PhotoPicture] = [], missing: [PictureMissing] = []
            for chunk in stride(from: 0, to: ids.count, by: PhotosPicturesRequest.maximumIDs).map({ Array(ids[$0..<min($0 + PhotosPicturesRequest.maximumIDs, ids.count)]) }) {
                let answer = try await client.send(PhotosPicturesRequest(ids: chunk, terminal: terminal))
                pictures += answer.pictures
                missing += answer.missing
            }
            Output.line(render(ids: ids, pictures: pictures, missing: missing, width: width, tileColumns: terminal.columns, style: global.style))
        }
    }

    /// The sheet's lines: tiles in the order of `ids`, as many to a row as `width` holds.
    static func render(
        ids: [String], pictures: [PhotoPicture], missing: [PictureMissing], width: Int, tileColumns: Int = tileColumns,
        style: TerminalStyle
    ) -> String {
        let drawn = Dictionary(pictures.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return render(tiles: ids.map { ($0, drawn[$0]?.text) }, width: width, tileColumns: tileColumns, tileRows: tileRows, style: style)
    }

    /// Tiles side by side, each a picture's symbol lines (or a dot for none) over its caption.
    static func render(tiles: [(caption: String, picture: String?)], width: Int, tileColumns: Int, tileRows: Int, style: TerminalStyle) -> String {
        let tiles = tiles.map { tile -> [String] in
            var lines = tile.picture.map { $0.split(separator: "\n").map(String.init) } ?? [style.dim("·")]
            lines = Array(lines.prefix(tileRows))
            while lines.count < tileRows { lines.append("") }
            let caption = tile.caption
            lines.append(style.dim(caption.count <= tileColumns ? caption : String(caption.prefix(tileColumns - 1)) + "…"))
            return lines.map { pad($0, to: tileColumns) }
        }
        let perRow = max(1, (width + gap) / (tileColumns + gap))
        var rows: [String] = []
        for start in stride(from: 0, to: tiles.count, by: perRow) {
            let row = tiles[start..<min(start + perRow, tiles.count)]
            for line in 0...tileRows {
                rows.append(row.map { $0[line] }.joined(separator: String(repeating: " ", count: gap)))
            }
        }
        return rows.joined(separator: "\n")
    }

    /// `line` followed by spaces up to `columns` cells (escape sequences take none).
    static func pad(_ line: String, to columns: Int) -> String {
        let visible = visibleWidth(line)
        return visible >= columns ? line : line + String(repeating: " ", count: columns - visible)
    }

    /// Cells a line takes: every character but those inside `ESC [ … letter` sequences.
    static func visibleWidth(_ line: String) -> Int {
        var width = 0, inEscape = false, sawBracket = false
        for scalar in line.unicodeScalars {
            if inEscape {
                if !sawBracket { sawBracket = scalar == "["; if !sawBracket { inEscape = false }; continue }
                if (0x40...0x7E).contains(scalar.value) { inEscape = false }
                continue
            }
            if scalar == "\u{1B}" {
                inEscape = true
                sawBracket = false
                continue
            }
            width += 1
        }
        return width
    }
}
