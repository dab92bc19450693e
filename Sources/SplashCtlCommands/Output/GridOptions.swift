import ArgumentParser
import CLIText

/// `--grid` and `--image`, for the commands that list photos (search, topic, random, photos list).
struct GridOptions: ParsableArguments {
    @Flag(help: .text(.gridFlag)) var grid = false
    @Option(help: .text(.imageOption)) var image: ImageChoice = .auto

    /// Whether the sheet replaces the table: asked for, and something can be drawn.
    func drawsSheet(json: Bool) -> Bool { grid && !json && image != .none }
}
