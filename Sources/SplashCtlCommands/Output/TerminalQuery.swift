#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RegexBuilder
import Shared

/// Asks the terminal itself what it is, when its environment leaves splashctl unsure (as timg does):
/// XTVERSION (`CSI > q`) followed by a status report (`CSI 5 n`), whose answer `CSI 0 n` marks the end
/// of the answers, then — only if still unsure — the primary device attributes (`CSI c`), where a `4`
/// among them means sixel. A terminal that never answers costs the timeout and gets symbols.
///
/// The terminal is put in raw mode (no echo, no line buffering) for the questions and restored after,
/// whatever happens.
enum TerminalQuery {
    struct Answer: Equatable, Sendable {
        /// The mode the answers name, nil when they name none.
        var mode: TerminalSpec.Mode?
        /// Whether the terminal answered at all.
        var answered: Bool
        /// The terminal is tmux (its own XTVERSION answer).
        var inTmux: Bool
    }

    /// What the XTVERSION and DA1 answers say.
    static func mode(version: String, attributes: String?) -> TerminalSpec.Mode? {
        let lower = version.lowercased()
        if lower.contains("kitty") || lower.contains("ghostty") { return .kitty }
        if lower.contains("iterm2") || lower.contains("wezterm") || lower.contains("konsole 2") { return .iterm }
        if lower.contains("mlterm") || lower.contains("foot") { return .sixel }
        if let attributes, Self.attributesHaveSixel(attributes) { return .sixel }
        return nil
    }

    /// DA1's answer `CSI ? 6 4 ; 1 ; 2 ; 4 ; … c`: attribute 4 is sixel graphics.
    static func attributesHaveSixel(_ answer: String) -> Bool {
        guard let start = answer.range(of: "\u{1B}[?"), let end = answer[start.upperBound...].firstIndex(of: "c") else { return false }
        return answer[start.upperBound..<end].split(separator: ";").contains("4")
    }

    /// Asks the terminal on `fd` (a tty), waiting at most `timeout` for each answer.
    static func ask(fd: Int32, timeout: Duration = .milliseconds(150)) -> Answer {
        inRawMode(fd) { () -> Answer in
            let version = exchange(fd, question: "\u{1B}[>q\u{1B}[5n", until: "\u{1B}[0n", timeout: timeout)
            guard let version else { return Answer(mode: nil, answered: false, inTmux: false) }
            let inTmux = version.lowercased().contains("tmux")
            if let mode = mode(version: version, attributes: nil) { return Answer(mode: mode, answered: true, inTmux: inTmux) }
            let attributes = exchange(fd, question: "\u{1B}[c", until: "c", afterPrefix: "\u{1B}[?", timeout: timeout)
            return Answer(mode: mode(version: version, attributes: attributes), answered: true, inTmux: inTmux)
        } ?? Answer(mode: nil, answered: false, inTmux: false)
    }

    /// A cell's size in pixels, asked of the terminal on `fd` when TIOCGWINSZ gave none (a terminal over
    /// ssh, an emulator that leaves the pixel fields zero): `CSI 16 t` (the cell) and `CSI 14 t` (the
    /// text area, for terminals that answer only that), a status report marking the end of the answers.
    /// `columns` × `rows`: the window in cells. Nil when the terminal does not say, or says nonsense.
    static func cellSize(fd: Int32, columns: Int, rows: Int, timeout: Duration = .milliseconds(150)) -> (width: Int, height: Int)? {
        inRawMode(fd) { () -> (width: Int, height: Int)? in
            exchange(fd, question: "\u{1B}[16t\u{1B}[14t\u{1B}[5n", until: "\u{1B}[0n", timeout: timeout).flatMap {
                cellSize(answers: $0, columns: columns, rows: rows)
            }
        } ?? nil
    }

    /// The cell's size in the answers to `CSI 16 t` (`CSI 6 ; height ; width t`) or, failing that,
    /// `CSI 14 t` (`CSI 4 ; height ; width t`, the text area) divided by the window's cells.
    static func cellSize(answers: String, columns: Int, rows: Int) -> (width: Int, height: Int)? {
        func report(_ kind: Int) -> (height: Int, width: Int)? {
            guard let match = answers.firstMatch(of: Regex {
                "\u{1B}["
                String(kind)
                ";"
                Capture { OneOrMore(.digit) } transform: { Int($0) }
                ";"
                Capture { OneOrMore(.digit) } transform: { Int($0) }
                "t"
            }), let height = match.1, let width = match.2 else { return nil }
            return (height, width)
        }
        if let cell = report(6), let size = WindowSize(columns: 1, rows: 1, pixelWidth: cell.width, pixelHeight: cell.height).cell {
            return size
        }
        if let area = report(4) { return WindowSize(columns: columns, rows: rows, pixelWidth: area.width, pixelHeight: area.height).cell }
        return nil
    }

    /// `body` with `fd` in raw mode (no echo, no line buffering, reads that never block), the terminal
    /// restored after whatever happens; nil when `fd` is not a terminal that can be put in raw mode.
    private static func inRawMode<T>(_ fd: Int32, _ body: () -> T) -> T? {
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutablePointer(to: &raw.c_cc) { pointer in
            pointer.withMemoryRebound(to: cc_t.self, capacity: Int(NCCS)) { cc in
                cc[Int(VMIN)] = 0
                cc[Int(VTIME)] = 0
            }
        }
        guard tcsetattr(fd, TCSANOW, &raw) == 0 else { return nil }
        defer { _ = tcsetattr(fd, TCSANOW, &saved) }
        return body()
    }

    /// Asks the controlling terminal (`/dev/tty`), nil when there is none to ask.
    static func askControllingTerminal(timeout: Duration = .milliseconds(150)) -> Answer? {
        onControllingTerminal { ask(fd: $0, timeout: timeout) }
    }

    /// The cell's size asked of the controlling terminal (`/dev/tty`), nil when there is none to ask or
    /// it does not say.
    static func askControllingTerminalForCell(columns: Int, rows: Int, timeout: Duration = .milliseconds(150)) -> (width: Int, height: Int)? {
        onControllingTerminal { cellSize(fd: $0, columns: columns, rows: rows, timeout: timeout) } ?? nil
    }

    private static func onControllingTerminal<T>(_ body: (Int32) -> T) -> T? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return body(fd)
    }

    /// Writes `question` and reads until `marker` arrives (after `afterPrefix`, if given) or `timeout`
    /// passes; nil when nothing complete arrived.
    private static func exchange(_ fd: Int32, question: String, until marker: String, afterPrefix: String? = nil, timeout: Duration) -> String? {
        let bytes = Array(question.utf8)
        guard bytes.withUnsafeBufferPointer({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else { return nil }
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
            let text = String(decoding: received, as: UTF8.self)
            let searchFrom = afterPrefix.flatMap { text.range(of: $0)?.upperBound } ?? (afterPrefix == nil ? text.startIndex : nil)
            if let searchFrom, text[searchFrom...].contains(marker) { return text }
        }
        return nil
    }
}
