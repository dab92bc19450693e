import Foundation

/// A one-line progress bar on stderr (only ever drawn on a terminal): `▕██████░░░░▏ 60/100`.
struct ProgressBar {
    let total: Int
    let width = 30

    func draw(done: Int) {
        let fraction = total == 0 ? 1 : Double(done) / Double(total)
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        Output.prompt("\r▕\(bar)▏ \(done)/\(total)")
    }

    func clear() {
        Output.prompt("\r\u{1B}[2K")
    }
}
