#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import Shared

/// `--image`: how pictures are drawn; `auto` detects the terminal, `none` draws nothing.
enum ImageChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case auto, none, symbols, kitty, sixel, iterm
}

/// A terminal's size in cells and, when it says, in pixels (TIOCGWINSZ).
struct WindowSize: Sendable, Equatable {
    var columns: Int
    var rows: Int
    var pixelWidth: Int
    var pixelHeight: Int

    /// The cell's size in pixels, when the terminal reports a plausible one.
    var cell: (width: Int, height: Int)? {
        guard columns > 0, rows > 0, pixelWidth > 0, pixelHeight > 0 else { return nil }
        let width = pixelWidth / columns, height = pixelHeight / rows
        return (2...64).contains(width) && (4...128).contains(height) ? (width, height) : nil
    }
}

/// What the terminal splashctl writes to can draw, from the environment the terminal sets (the same
/// rules as libchafa 1.12's database, plus kitty's and ghostty's own variables). splashctl owns the tty:
/// the daemon never guesses. Inside tmux the graphics protocols need passthrough, so symbols are drawn.
enum TerminalGraphics {
    static func mode(environment: [String: String]) -> TerminalSpec.Mode {
        let term = environment["TERM"] ?? "", program = environment["TERM_PROGRAM"] ?? ""
        if environment["TMUX"] != nil || term.hasPrefix("screen") || term.hasPrefix("tmux") { return .symbols }
        if term == "xterm-kitty" || term == "xterm-ghostty" || environment["KITTY_WINDOW_ID"] != nil || program == "ghostty" { return .kitty }
        if program == "iTerm.app" || environment["LC_TERMINAL"] == "iTerm2" || program == "WezTerm" { return .iterm }
        if let konsole = environment["KONSOLE_VERSION"].flatMap(Int.init), konsole >= 220_370 { return .sixel }
        if ["mlterm", "contour"].contains(term) || term.hasPrefix("foot") || term.hasPrefix("yaft") || environment["TERMINAL_NAME"] == "contour" {
            return .sixel
        }
        return .symbols
    }

    static func colors(environment: [String: String], noColor: Bool) -> TerminalSpec.Colors {
        if noColor || environment["NO_COLOR"] != nil { return .none }
        let colorTerm = environment["COLORTERM"] ?? "", term = environment["TERM"] ?? ""
        if colorTerm == "truecolor" || colorTerm == "24bit" || environment["VTE_VERSION"] != nil || term.hasSuffix("-direct") || term == "xterm-kitty" {
            return .truecolor
        }
        return term.contains("256color") ? .indexed256 : .indexed16
    }

    /// The picture to ask for, or nil when none is drawn: `none`, under `--json`, or with stdout not a
    /// terminal (auto only; a forced mode draws into a pipe too, for those who asked). `share` is the
    /// part of the terminal's height the picture may take.
    static func spec(
        choice: ImageChoice, json: Bool, isTerminal: Bool, size: WindowSize?, environment: [String: String], noColor: Bool,
        share: Double = 0.6
    ) -> TerminalSpec? {
        guard choice != .none, !json else { return nil }
        guard choice != .auto || isTerminal else { return nil }
        let mode: TerminalSpec.Mode = switch choice {
        case .auto, .none: Self.mode(environment: environment)
        case .symbols: .symbols
        case .kitty: .kitty
        case .sixel: .sixel
        case .iterm: .iterm
        }
        let columns = max(1, size?.columns ?? 80), rows = max(1, size?.rows ?? 24)
        let cell = size?.cell
        return TerminalSpec(
            mode: mode, columns: min(columns, TerminalSpec.maximumColumns),
            rows: min(max(1, Int(Double(rows) * share)), TerminalSpec.maximumRows),
            cellWidth: cell?.width, cellHeight: cell?.height, colors: colors(environment: environment, noColor: noColor))
    }

    /// The process's terminal size (stdout's), nil when it is not a terminal.
    static func windowSize() -> WindowSize? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return WindowSize(columns: Int(size.ws_col), rows: Int(size.ws_row), pixelWidth: Int(size.ws_xpixel), pixelHeight: Int(size.ws_ypixel))
    }
}
