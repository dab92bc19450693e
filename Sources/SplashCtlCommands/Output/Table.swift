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

    func render() -> String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { ContactSheet.visibleWidth($0[column]) }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                column == row.count - 1 ? row[column] : ContactSheet.pad(row[column], to: widths[column])
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
