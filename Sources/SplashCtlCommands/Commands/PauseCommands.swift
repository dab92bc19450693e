import ArgumentParser
import CLIText
import Foundation
import Shared

// splashctl's pause and resume of sync.

struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: HelpText.pauseAbstract.text())
    @OptionGroup var global: GlobalOptions
    // Unconditional: "--for -5m" is a length this command refuses in words, not a missing value.
    @Option(name: .customLong("for"), parsing: .unconditional, help: .text(.pauseFor)) var length: String?
    @Flag(help: .text(.pauseDownloadsOnly)) var downloadsOnly = false

    /// A length it cannot read is a usage error of this command, shown with its own usage.
    func validate() throws {
        _ = try length.map { try PauseLength.seconds($0) }
    }

    func run() async throws {
        let seconds = try length.map { try PauseLength.seconds($0) }
        try await global.run(SyncPauseRequest(forSeconds: seconds, downloadsOnly: downloadsOnly ? true : nil)) { status, style in
            Self.describe(status, style)
        }
    }

    /// The pause in a line: until when, and what waits.
    static func describe(_ status: PauseStatus, _ style: TerminalStyle) -> String {
        guard status.paused else { return style.green(Message.syncRunning.text()) }
        let message: Message = switch (status.until.map(Formatting.absolute), status.downloadsOnly) {
        case (let until?, false): .syncPausedUntil(until)
        case (let until?, true): .downloadsPausedUntil(until)
        case (nil, false): .syncPausedUntilResume
        case (nil, true): .downloadsPausedUntilResume
        }
        return style.yellow(message.text())
    }
}

struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: HelpText.resumeAbstract.text())
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run(SyncResumeRequest()) { status, style in PauseCommand.describe(status, style) }
    }
}

/// `--for`'s length of time: numbers each with its unit (s, m, h, d), as in 90s, 30m, 2h, 1d or 1h30m,
/// from a minute to 30 days (what `sync.pause` takes). Anything else — "-5m", "forever", "2 hours" — is
/// a usage error that says what would do.
enum PauseLength {
    static func seconds(_ text: String) throws(ValidationError) -> Int {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var total = 0, digits = "", sawUnit = false
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
            } else if let unit = units[character], let number = Int(digits), digits.count <= 7 {
                total += number * unit
                digits = ""
                sawUnit = true
            } else {
                throw ValidationError(Message.pauseLengthUnreadable(text).text())
            }
        }
        guard sawUnit, digits.isEmpty else { throw ValidationError(Message.pauseLengthUnreadable(text).text()) }
        guard (60...SyncPauseRequest.longest).contains(total) else { throw ValidationError(Message.pauseLengthOutOfRange(text).text()) }
        return total
    }
}
