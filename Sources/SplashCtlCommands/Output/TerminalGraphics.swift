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

    /// Inside tmux: the terminal tmux runs in, when it is iTerm2 (its variable survives ssh and tmux)
    /// or kitty (`KITTY_WINDOW_ID`, kept by a tmux started in kitty; its images go as Unicode
    /// placeholders, `KittyPlaceholders`) and tmux passes escape sequences through
    /// (`allow-passthrough`, tmux ≥ 3.3, asked of tmux by `passthroughAllowed`); nil otherwise, and
    /// symbols are drawn. tmux before 3.4 has no sixel: sixel terminals get symbols.
    static func modeThroughTmux(environment: [String: String], passthroughAllowed: () -> Bool) -> TerminalSpec.Mode? {
        guard environment["TMUX"] != nil else { return nil }
        let mode: TerminalSpec.Mode
        if environment["LC_TERMINAL"] == "iTerm2" { mode = .iterm }
        else if environment["KITTY_WINDOW_ID"] != nil { mode = .kitty }
        else { return nil }
        return passthroughAllowed() ? mode : nil
    }

    /// A picture's text as printed inside tmux: kitty's as placeholders, another graphics sequence
    /// wrapped for passthrough; symbols as they are.
    static func throughTmux(_ picture: PhotoPicture, mode: TerminalSpec.Mode) -> String {
        switch mode {
        case .symbols: picture.text
        case .kitty: KittyPlaceholders.throughTmux(picture.text, columns: picture.columns, rows: picture.rows, id: KittyPlaceholders.newID())
        case .sixel, .iterm: tmuxPassthrough(picture.text)
        }
    }

    /// tmux's own answer: `allow-passthrough` on (or `all`) for the current pane, set on it or
    /// inherited (`-A`: `set -g allow-passthrough on` in a tmux.conf sets no pane's own value).
    static func tmuxAllowsPassthrough() -> Bool {
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        process.arguments = ["show", "-Apv", "allow-passthrough"]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        let value = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 && (value == "on" || value == "all")
    }

    /// A graphics sequence wrapped for tmux to pass to its terminal: `ESC P tmux;` … `ESC \`, every
    /// escape inside doubled.
    static func tmuxPassthrough(_ sequence: String) -> String {
        "\u{1B}Ptmux;" + sequence.replacingOccurrences(of: "\u{1B}", with: "\u{1B}\u{1B}") + "\u{1B}\\"
    }

    /// Whether the environment leaves the mode open: it names no graphics protocol, yet the terminal
    /// may well speak one (an xterm, a terminal over ssh). The console, dumb terminals and tmux are
    /// known not to (tmux answers for itself, not for the terminal it runs in).
    static func unsure(environment: [String: String]) -> Bool {
        let term = environment["TERM"] ?? ""
        guard mode(environment: environment) == .symbols, environment["TMUX"] == nil else { return false }
        return !term.isEmpty && !["linux", "dumb", "vt100", "vt220"].contains(term) && !term.hasPrefix("screen") && !term.hasPrefix("tmux")
    }

    /// `SPLASHCTL_IMAGE` (auto, none, symbols, kitty, sixel, iterm): the default for `--image auto`, set
    /// once in a shell profile. Left at auto, the mode detected is sent as such, and the daemon's
    /// `pictures.terminal` may decide instead (`TerminalSpec.detected`).
    static func defaultChoice(environment: [String: String]) -> ImageChoice {
        environment["SPLASHCTL_IMAGE"].flatMap(ImageChoice.init(rawValue:)) ?? .auto
    }

    /// The picture to ask for, or nil when none is drawn: `none`, under `--json`, or with stdout not a
    /// terminal (auto only; a forced mode draws into a pipe too, for those who asked). `share` is the
    /// part of the terminal's height the picture may take. `ask` questions the terminal itself, only
    /// when the environment leaves it unsure; `askCell` asks it for its cell's pixels, only for a pixel
    /// mode when the window size has none.
    static func spec(
        choice requested: ImageChoice, json: Bool, isTerminal: Bool, size: WindowSize?, environment: [String: String], noColor: Bool,
        share: Double = 0.6, ask: () -> TerminalQuery.Answer? = { nil }, askCell: (WindowSize) -> (width: Int, height: Int)? = { _ in nil }
    ) -> TerminalSpec? {
        let choice = requested == .auto ? defaultChoice(environment: environment) : requested
        guard choice != .none, !json else { return nil }
        guard choice != .auto || isTerminal else { return nil }
        let mode: TerminalSpec.Mode = switch choice {
        case .auto, .none:
            if unsure(environment: environment) { ask()?.mode ?? .symbols }
            else { modeThroughTmux(environment: environment, passthroughAllowed: tmuxAllowsPassthrough) ?? Self.mode(environment: environment) }
        case .symbols: .symbols
        case .kitty: .kitty
        case .sixel: .sixel
        case .iterm: .iterm
        }
        let columns = max(1, size?.columns ?? 80), rows = max(1, size?.rows ?? 24)
        // A pixel mode draws columns × cell width pixels: when TIOCGWINSZ has no pixels, the terminal
        // is asked (`CSI 16 t`); failing that, the daemon's 8 × 16.
        let cell = size?.cell ?? (mode == .symbols ? nil : askCell(size ?? WindowSize(columns: columns, rows: rows, pixelWidth: 0, pixelHeight: 0)))
        return TerminalSpec(
            mode: mode, columns: min(columns, TerminalSpec.maximumColumns),
            rows: min(max(1, Int(Double(rows) * share)), TerminalSpec.maximumRows),
            cellWidth: cell?.width, cellHeight: cell?.height, colors: colors(environment: environment, noColor: noColor),
            detected: choice == .auto ? true : nil)
    }

    /// The process's terminal size (stdout's), nil when it is not a terminal.
    static func windowSize() -> WindowSize? {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return WindowSize(columns: Int(size.ws_col), rows: Int(size.ws_row), pixelWidth: Int(size.ws_xpixel), pixelHeight: Int(size.ws_ypixel))
    }
}
