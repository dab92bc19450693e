#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shared
@testable import SplashCtlCommands
import Synchronization
import Testing

/// splashctl's reading of the terminal from its environment: the graphics protocol
/// its variables name, symbols inside tmux and everywhere else; no picture for a pipe, `--json` or
/// `--image none`; the room capped; the cell size only when the terminal's report is plausible.
@Suite struct TerminalGraphicsTests {
    @Test(arguments: [
        (["TERM": "xterm-kitty"], TerminalSpec.Mode.kitty),
        (["TERM": "xterm-256color", "KITTY_WINDOW_ID": "3"], .kitty),
        (["TERM": "xterm-ghostty"], .kitty),
        (["TERM_PROGRAM": "iTerm.app"], .iterm),
        (["LC_TERMINAL": "iTerm2"], .iterm),
        (["TERM_PROGRAM": "WezTerm"], .iterm),
        (["TERM": "foot"], .sixel),
        (["TERM": "xterm-256color", "KONSOLE_VERSION": "230804"], .sixel),
        (["TERM": "xterm-256color", "KONSOLE_VERSION": "210800"], .symbols),
        (["TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"], .symbols),
        (["TERM": "screen-256color"], .symbols),
        (["TERM": "xterm-256color"], .symbols),
        ([:], .symbols),
    ])
    func theModeComesFromTheTerminalsVariables(environment: [String: String], mode: TerminalSpec.Mode) {
        #expect(TerminalGraphics.mode(environment: environment) == mode)
    }

    @Test func coloursFollowTheTerminalAndNoColor() {
        #expect(TerminalGraphics.colors(environment: ["COLORTERM": "truecolor"], noColor: false) == .truecolor)
        #expect(TerminalGraphics.colors(environment: ["TERM": "xterm-256color"], noColor: false) == .indexed256)
        #expect(TerminalGraphics.colors(environment: ["TERM": "vt100"], noColor: false) == .indexed16)
        #expect(TerminalGraphics.colors(environment: ["COLORTERM": "truecolor", "NO_COLOR": "1"], noColor: false) == TerminalSpec.Colors.none)
        #expect(TerminalGraphics.colors(environment: ["COLORTERM": "truecolor"], noColor: true) == TerminalSpec.Colors.none)
    }

    @Test func nothingIsDrawnForAPipeJSONOrNone() {
        let size = WindowSize(columns: 120, rows: 40, pixelWidth: 1200, pixelHeight: 800)
        func spec(_ choice: ImageChoice, json: Bool = false, terminal: Bool = true) -> TerminalSpec? {
            TerminalGraphics.spec(choice: choice, json: json, isTerminal: terminal, size: size, environment: ["TERM": "xterm-kitty"], noColor: false)
        }
        #expect(spec(.auto, terminal: false) == nil)
        #expect(spec(.auto, json: true) == nil && spec(.symbols, json: true) == nil)
        #expect(spec(.none) == nil)
        #expect(spec(.symbols, terminal: false)?.mode == .symbols, "a forced mode draws into a pipe")
        let auto = spec(.auto)
        #expect(auto?.mode == .kitty && auto?.columns == 120 && auto?.rows == 24 && auto?.cellWidth == 10 && auto?.cellHeight == 20)
    }

    @Test func aHugeOrTinyTerminalGetsAPictureThatFits() {
        let huge = TerminalGraphics.spec(
            choice: .symbols, json: false, isTerminal: true, size: WindowSize(columns: 3000, rows: 1000, pixelWidth: 0, pixelHeight: 0),
            environment: [:], noColor: false)
        #expect(huge?.columns == TerminalSpec.maximumColumns && huge?.rows == TerminalSpec.maximumRows && huge?.cellWidth == nil)
        let tiny = TerminalGraphics.spec(
            choice: .symbols, json: false, isTerminal: true, size: WindowSize(columns: 1, rows: 1, pixelWidth: 1, pixelHeight: 1),
            environment: [:], noColor: false)
        #expect(tiny?.columns == 1 && tiny?.rows == 1 && tiny?.cellWidth == nil, "an implausible 1 × 1 pixel cell is not believed")
    }
}

/// `--grid`'s contact sheet: tiles side by side as many as the width holds, each id under its picture,
/// a photo without a picture a placeholder tile; colour sequences take no width.
/// A table's columns line up by what the terminal shows: a bold header's escape sequences take no
/// room (they made every column of a table printed to a terminal 8 cells too wide).
@Suite struct TableTests {
    @Test func boldHeadersTakeTheRoomOfTheirWords() {
        var plain = Table(headers: ["FILTER", "WHAT IT DOES"])
        var bold = Table(headers: ["FILTER", "WHAT IT DOES"].map(TerminalStyle(color: true).bold))
        plain.rows = [["sepia", "Warm brown tones."], ["mono", "Black and white."]]
        bold.rows = plain.rows
        #expect(plain.render() == "FILTER  WHAT IT DOES\nsepia   Warm brown tones.\nmono    Black and white.")
        let lines = bold.render().components(separatedBy: "\n")
        #expect(lines.map(ContactSheet.visibleWidth) == plain.render().components(separatedBy: "\n").map(\.count))
        #expect(lines[1] == "sepia   Warm brown tones.")
        #expect(Table(headers: ["É", "x"], rows: [["ação", "y"]]).render() == "É     x\nação  y", "characters, not bytes")
    }

    /// On a terminal the last column wraps under itself; in a pipe (no width), or with too little room
    /// left by the other columns, lines stay whole.
    @Test func theLastColumnWrapsToTheTerminal() {
        let table = Table(headers: ["FILTER", "WHAT IT DOES"], rows: [
            ["vignette", "Darkens (or, with a negative intensity, lightens) towards the corners."], ["mono", "Black and white."]])
        let wrapped = table.render(width: 40)
        #expect(wrapped == """
            FILTER    WHAT IT DOES
            vignette  Darkens (or, with a negative
                      intensity, lightens) towards
                      the corners.
            mono      Black and white.
            """)
        #expect(wrapped.components(separatedBy: "\n").allSatisfy { $0.count <= 40 })
        #expect(table.render(width: nil) == table.render())
        #expect(table.render(width: 30) == table.render(), "20 cells left: too narrow to wrap into")
        #expect(Table.wrap("a-very-long-word b", to: 5) == ["a-very-long-word", "b"])
    }
}

@Suite struct ContactSheetTests {
    static func picture(_ id: String, rows: Int, columns: Int) -> PhotoPicture {
        let line = String(repeating: "\u{1B}[38;2;1;2;3m\u{2584}", count: columns) + "\u{1B}[0m"
        return PhotoPicture(id: id, text: Array(repeating: line, count: rows).joined(separator: "\n") + "\n", columns: columns, rows: rows, from: .cache, path: "/p")
    }

    @Test func escapeSequencesTakeNoWidth() {
        #expect(ContactSheet.visibleWidth("\u{1B}[38;2;10;20;30;48;2;1;2;3m\u{2584}\u{1B}[0mab") == 3)
        #expect(ContactSheet.visibleWidth(ContactSheet.pad("\u{1B}[1mx\u{1B}[0m", to: 5)) == 5)
    }

    @Test func tilesFillTheWidthWithEachIdUnderItsPicture() {
        let ids = ["unsplash:a", "unsplash:b", "unsplash:c"]
        let sheet = ContactSheet.render(
            ids: ids, pictures: [Self.picture("unsplash:a", rows: 8, columns: 20), Self.picture("unsplash:c", rows: 5, columns: 12)],
            missing: [PictureMissing(id: "unsplash:b", reason: "gone")], width: 50, style: TerminalStyle(color: false))
        let lines = sheet.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // 50 columns hold two 20-cell tiles and a gap: two rows of tiles, each 8 picture lines and an id line.
        #expect(lines.count == 2 * (ContactSheet.tileRows + 1), "\(lines.count)")
        #expect(lines[ContactSheet.tileRows].hasPrefix("unsplash:a") && lines[ContactSheet.tileRows].contains("unsplash:b"))
        #expect(lines.last?.hasPrefix("unsplash:c") == true)
        #expect(lines.allSatisfy { ContactSheet.visibleWidth($0) <= 50 }, "nothing wider than the terminal")
        #expect(lines[0].contains("\u{2584}") && lines[0].contains("·"), "a's picture beside b's placeholder")
    }
}

/// `edit --preview` with no file after it draws here: the words get the value `-` before parsing.
@Suite struct PreviewArgumentTests {
    @Test func aBarePreviewGetsTheValueDash() {
        #expect(GlobalArguments.prepared(["edit", "unsplash:a", "--filter", "sepia", "--preview"]).suffix(2) == ["--preview", "-"])
        #expect(GlobalArguments.prepared(["edit", "unsplash:a", "--preview", "--filter", "sepia"]) == ["edit", "unsplash:a", "--preview", "-", "--filter", "sepia"])
        #expect(GlobalArguments.prepared(["edit", "unsplash:a", "--preview", "out.jpg", "--filter", "sepia"]).contains("-") == false)
        #expect(GlobalArguments.prepared(["--json", "edit", "unsplash:a", "--preview", "-"]) == ["edit", "unsplash:a", "--preview", "-", "--json"])
    }
}

/// The terminal asked for itself over a real pseudo-terminal: this test plays the terminal on the
/// master side, answering (or not) what splashctl asks on the slave side.
@Suite struct TerminalQueryTests {
    /// Runs `TerminalQuery.ask` on a pty whose terminal side reads the questions and answers with
    /// `reply(question)`, nil for silence.
    /// `timeout` is generous where the terminal answers (an answer ends the wait at once; a loaded
    /// machine must not turn a slow thread into a terminal that never answered).
    static func ask(
        timeout: Duration = .seconds(3), _ reply: @escaping @Sendable (String) -> String?
    ) throws -> (answer: TerminalQuery.Answer, asked: String) {
        try play(reply) { TerminalQuery.ask(fd: $0, timeout: timeout) }
    }

    /// Runs `question` on the slave side of a pty whose terminal side answers with `reply(question)`.
    static func play<T>(
        _ reply: @escaping @Sendable (String) -> String?, _ question: (Int32) -> T
    ) throws -> (answer: T, asked: String) {
        // posix_openpt by hand (Glibc's module leaves it out): /dev/ptmx, unlocked, its number asked.
        // TIOCSPTLCK and TIOCGPTN are _IOW/_IOR macros Swift cannot import: their values (asm-generic).
        let TIOCSPTLCK: UInt = 0x4004_5431, TIOCGPTN: UInt = 0x8004_5430
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0, number: UInt32 = 0
        try #require(master >= 0 && ioctl(master, TIOCSPTLCK, &unlock) == 0 && ioctl(master, TIOCGPTN, &number) == 0)
        defer { close(master) }
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        try #require(slave >= 0)
        defer { close(slave) }
        let asked = Mutex("")
        let done = Mutex(false)
        let terminal = Thread {
            var buffer = [UInt8](repeating: 0, count: 256)
            var seen = ""
            while !done.withLock({ $0 }) {
                var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 25) > 0 else { continue }
                let count = read(master, &buffer, buffer.count)
                guard count > 0 else { return }
                let question = String(decoding: buffer[0..<count], as: UTF8.self)
                seen += question
                asked.withLock { $0 = seen }
                if let answer = reply(question) { _ = Array(answer.utf8).withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count) } }
            }
        }
        terminal.start()
        let answer = question(slave)
        done.withLock { $0 = true }
        while !terminal.isFinished { usleep(5_000) }
        return (answer, asked.withLock { $0 })
    }

    @Test func kittyNamesItselfInItsVersion() throws {
        let (answer, asked) = try Self.ask { question in
            question.contains("[>q") ? "\u{1B}P>|kitty(0.26.5)\u{1B}\\\u{1B}[0n" : nil
        }
        #expect(asked.contains("\u{1B}[>q") && asked.contains("\u{1B}[5n"))
        #expect(answer == TerminalQuery.Answer(mode: .kitty, answered: true, inTmux: false))
    }

    @Test func anXtermWithSixelSaysSoInItsAttributes() throws {
        let (answer, asked) = try Self.ask { question in
            if question.contains("[>q") { return "\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[0n" }
            if question.contains("[c") { return "\u{1B}[?64;1;2;4;6;9;15;18;21;22c" }
            return nil
        }
        #expect(asked.contains("\u{1B}[c"), "DA1 asked only when the version named nothing")
        #expect(answer.mode == .sixel && answer.answered)
    }

    @Test func aTerminalThatNeverAnswersCostsTheTimeoutAndGetsSymbols() throws {
        let started = ContinuousClock.now
        let (answer, _) = try Self.ask(timeout: .milliseconds(200)) { _ in nil }
        #expect(answer == TerminalQuery.Answer(mode: nil, answered: false, inTmux: false))
        #expect(ContinuousClock.now - started < .seconds(2))
        let spec = TerminalGraphics.spec(
            choice: .auto, json: false, isTerminal: true, size: nil, environment: ["TERM": "xterm-256color"], noColor: false, ask: { answer })
        #expect(spec?.mode == .symbols)
    }

    /// TIOCGWINSZ with no pixels: the cell asked with `CSI 16 t`, else worked out from `CSI 14 t`'s
    /// text area; a terminal that says nothing (or nonsense) leaves the daemon's default.
    @Test func theCellSizeIsAskedWhenTheWindowSizeHasNoPixels() throws {
        let cell = try Self.play({ question in
            question.contains("[16t") ? "\u{1B}[6;20;10t\u{1B}[4;480;800t\u{1B}[0n" : nil
        }) { TerminalQuery.cellSize(fd: $0, columns: 80, rows: 24, timeout: .seconds(3)) }
        #expect(cell.asked.contains("\u{1B}[16t") && cell.asked.contains("\u{1B}[5n"))
        #expect(cell.answer.map { [$0.width, $0.height] } == [10, 20])
        let area = try Self.play({ question in question.contains("[14t") ? "\u{1B}[4;480;800t\u{1B}[0n" : nil }) {
            TerminalQuery.cellSize(fd: $0, columns: 80, rows: 24, timeout: .seconds(3))
        }
        #expect(area.answer.map { [$0.width, $0.height] } == [10, 20], "800 × 480 over 80 × 24 cells")
        let silent = try Self.play({ _ in nil }) { TerminalQuery.cellSize(fd: $0, columns: 80, rows: 24, timeout: .milliseconds(200)) }
        #expect(silent.answer == nil)
        #expect(TerminalQuery.cellSize(answers: "\u{1B}[6;0;0t\u{1B}[0n", columns: 80, rows: 24) == nil, "a zero cell is no answer")

        // Only a pixel mode asks, and only when TIOCGWINSZ had no pixels.
        let asked = Mutex(0)
        func spec(_ choice: ImageChoice, pixels: Int) -> TerminalSpec? {
            TerminalGraphics.spec(
                choice: choice, json: false, isTerminal: true, size: WindowSize(columns: 80, rows: 24, pixelWidth: pixels, pixelHeight: pixels),
                environment: ["TERM": "xterm-kitty"], noColor: false, askCell: { _ in
                    asked.withLock { $0 += 1 }
                    return (10, 20)
                })
        }
        #expect(spec(.kitty, pixels: 0).map { [$0.cellWidth, $0.cellHeight] } == [10, 20])
        #expect(spec(.kitty, pixels: 960).map { [$0.cellWidth, $0.cellHeight] } == [12, 40], "TIOCGWINSZ's own")
        #expect(spec(.symbols, pixels: 0)?.cellWidth == nil)
        #expect(asked.withLock { $0 } == 1)
    }

    /// The mode is marked detected only when nobody chose it, so that the daemon's pictures.terminal
    /// decides then and only then.
    @Test func onlyADetectedModeIsMarkedSo() {
        func spec(_ choice: ImageChoice, _ environment: [String: String] = ["TERM": "xterm-kitty"]) -> TerminalSpec? {
            TerminalGraphics.spec(choice: choice, json: false, isTerminal: true, size: nil, environment: environment, noColor: false)
        }
        #expect(spec(.auto)?.detected == true && spec(.auto)?.mode == .kitty)
        #expect(spec(.kitty)?.detected == nil && spec(.symbols)?.detected == nil)
        #expect(spec(.auto, ["TERM": "xterm-kitty", "SPLASHCTL_IMAGE": "sixel"])?.detected == nil, "the environment chose")
    }

    @Test func theTerminalIsAskedOnlyWhenTheEnvironmentIsUnsure() {
        let asked = Mutex(0)
        let kitty = TerminalQuery.Answer(mode: .kitty, answered: true, inTmux: false)
        func mode(_ environment: [String: String]) -> TerminalSpec.Mode? {
            TerminalGraphics.spec(choice: .auto, json: false, isTerminal: true, size: nil, environment: environment, noColor: false) {
                asked.withLock { $0 += 1 }
                return kitty
            }?.mode
        }
        #expect(mode(["TERM": "xterm-256color"]) == .kitty)
        #expect(mode(["TERM": "foot"]) == .sixel && mode(["TERM": "linux"]) == .symbols && mode(["TERM": "xterm", "TMUX": "x"]) == .symbols)
        #expect(asked.withLock { $0 } == 1)
        #expect(mode(["TERM": "xterm-256color", "SPLASHCTL_IMAGE": "none"]) == nil, "the environment's default")
    }
}

/// tmux: iTerm2's images pass through when tmux allows it, wrapped with every escape doubled; anything
/// else inside tmux is drawn with symbols.
@Suite struct TmuxPassthroughTests {
    @Test func iTermThroughTmuxOnlyWhenPassthroughIsAllowed() {
        let inTmux = ["TMUX": "/tmp/tmux-0/default,1,0", "TERM": "screen-256color", "LC_TERMINAL": "iTerm2"]
        #expect(TerminalGraphics.modeThroughTmux(environment: inTmux, passthroughAllowed: { true }) == .iterm)
        #expect(TerminalGraphics.modeThroughTmux(environment: inTmux, passthroughAllowed: { false }) == nil)
        #expect(TerminalGraphics.modeThroughTmux(environment: ["TMUX": "x", "TERM": "xterm-kitty"], passthroughAllowed: { true }) == nil)
        let kitty = ["TMUX": "x", "TERM": "screen-256color", "KITTY_WINDOW_ID": "3"]
        #expect(TerminalGraphics.modeThroughTmux(environment: kitty, passthroughAllowed: { true }) == .kitty)
        #expect(TerminalGraphics.modeThroughTmux(environment: kitty, passthroughAllowed: { false }) == nil)
        #expect(TerminalGraphics.modeThroughTmux(environment: ["LC_TERMINAL": "iTerm2"], passthroughAllowed: { true }) == nil, "not in tmux")
    }

    /// kitty inside tmux: every graphics command passed through (escapes doubled), the first made a
    /// quiet virtual placement of the image id; then one line of placeholders per row in the id's
    /// colour, each row's first cell carrying its row's diacritic.
    @Test func kittyGoesThroughTmuxAsAVirtualPlacementAndPlaceholders() {
        let picture = "\u{1B}_Ga=T,f=32,s=4,v=2,c=3,r=2,m=1;AAAA\u{1B}\\\u{1B}_Gm=0;BBBB\u{1B}\\\n"
        let text = KittyPlaceholders.throughTmux(picture, columns: 3, rows: 2, id: 0x01_02_2A)
        let first = "\u{1B}Ptmux;\u{1B}\u{1B}_GU=1,i=66090,q=2,a=T,f=32,s=4,v=2,c=3,r=2,m=1;AAAA\u{1B}\u{1B}\\\u{1B}\\"
        let second = "\u{1B}Ptmux;\u{1B}\u{1B}_Gm=0;BBBB\u{1B}\u{1B}\\\u{1B}\\"
        #expect(text.hasPrefix(first + second), "\(text.debugDescription)")
        let rows = text.dropFirst(first.count + second.count).split(separator: "\n").map(String.init)
        let colour = "\u{1B}[38;2;1;2;42m"
        #expect(rows == [
            colour + "\u{10EEEE}\u{0305}\u{10EEEE}\u{10EEEE}" + "\u{1B}[39m",
            colour + "\u{10EEEE}\u{030D}\u{10EEEE}\u{10EEEE}" + "\u{1B}[39m",
        ], "\(rows.map(\.debugDescription))")
        #expect(KittyPlaceholders.diacritics.count == 297 && KittyPlaceholders.diacritics.last == 0x1D244)
        #expect((0..<100).allSatisfy { _ in (1..<(1 << 24)).contains(KittyPlaceholders.newID()) })
    }

    @Test func aSequenceIsWrappedWithItsEscapesDoubled() {
        let wrapped = TerminalGraphics.tmuxPassthrough("\u{1B}]1337;File=inline=1:AAAA\u{07}")
        #expect(wrapped == "\u{1B}Ptmux;\u{1B}\u{1B}]1337;File=inline=1:AAAA\u{07}\u{1B}\\")
    }
}
