import ArgumentParser
import CLIText
import Foundation
import Shared

struct PhotoStats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: HelpText.photosStatsAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Argument(help: .text(.photosStatsID)) var id: String

    func run() async throws {
        try await global.run(PhotosStatsRequest(id: id)) { result, style in
            [
                style.bold(result.id),
                Self.chart(Message.statsViews.text(), result.views, style),
                Self.chart(Message.statsDownloads.text(), result.downloads, style),
            ].joined(separator: "\n\n")
        }
    }

    /// One line of bars per series, a bar per day scaled to the busiest day, then the totals.
    static func chart(_ name: String, _ series: StatSeries, _ style: TerminalStyle) -> String {
        let blocks = Array(" ▁▂▃▄▅▆▇█")
        let peak = max(series.values.map(\.value).max() ?? 0, 1)
        let bars = String(series.values.map { blocks[min(8, Int((Double($0.value) / Double(peak) * 8).rounded(.up)))] })
        let first = series.values.first?.date ?? "", last = series.values.last?.date ?? ""
        return """
            \(name)  \(style.dim(Message.peakPerDay(peak).text()))
            ▕\(bars)▏
             \(first)\(String(repeating: " ", count: max(1, series.values.count - first.count - last.count)))\(last)
            \(Message.changeInDays(change: series.change, days: series.values.count, total: series.total).text())
            """
    }
}
