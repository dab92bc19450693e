import CLIText
import Foundation

/// Aligned columns; the last column is not padded. Widths count the cells a terminal shows: characters,
/// not bytes, and not the escape sequences of a bold header.
struct Table {
    var headers: [String]
    var rows: [[String]] = []

    init(headers: [String], rows: [[String]] = []) {
        self.headers = headers
        self.rows = rows
    }

    /// Headers in the user's language, bold on a terminal.
    init(_ columns: [Column], _ style: TerminalStyle) {
        self.init(headers: columns.map { style.bold($0.text()) })
    }

    /// Labels in front of values (`status`, `whoami`, `profile`), in the user's language, each line
    /// indented by two: a table without headers, its values wrapping as a last column does.
    static func labelled(_ rows: [(Label, String)], width: Int?, language: Language = .current) -> String {
        Table(headers: [], rows: rows.map { ["  " + $0.0.text(language), $0.1] }).render(width: width)
    }

    /// With `width` (a terminal's columns), the last column's words wrap onto lines of their own under
    /// it, so that no line is longer than the terminal, as long as the other columns leave it room
    /// (`minimumLastColumn`); without, or without that room, lines are as long as they are. Without
    /// headers, the rows alone.
    func render(width: Int? = nil) -> String {
        let all = (headers.isEmpty ? [] : [headers]) + rows
        let columns = all.first?.count ?? 0
        let widths = (0..<columns).map { column in all.map { ContactSheet.visibleWidth($0[column]) }.max() ?? 0 }
        let start = widths.dropLast().reduce(0) { $0 + $1 + 2 }
        let room = width.map { $0 - start }.flatMap { $0 >= Self.minimumLastColumn ? $0 : nil }
        return all.map { row in
            let leading = row.dropLast().enumerated().map { ContactSheet.pad($0.element, to: widths[$0.offset]) + "  " }.joined()
            guard let last = row.last else { return leading }
            let lines = room.map { Self.wrap(last, to: $0) } ?? [last]
            return ([leading + lines[0]] + lines.dropFirst().map { String(repeating: " ", count: start) + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    static let minimumLastColumn = 24

    /// `text` in lines of at most `width` cells, broken between words; a word longer than that has a
    /// line of its own.
    static func wrap(_ text: String, to width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if ContactSheet.visibleWidth(line) + 1 + ContactSheet.visibleWidth(String(word)) <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        return lines + [line]
    }
}
