import ArgumentParser
import CLIText
import Foundation
import Shared

// splashctl library: the library as other programs see it (the Pictures folder).

struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library", abstract: HelpText.libraryAbstract.text(), subcommands: [LibraryExport.self])
}

struct LibraryExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: HelpText.libraryExportAbstract.text(), discussion: HelpText.libraryExportDiscussion.text())
    @OptionGroup var global: GlobalOptions
    @Flag(help: .text(.libraryExportCheck)) var check = false

    func run() async throws {
        var inStep = true
        try await global.run(LibraryExportRequest(check: check ? true : nil), observe: { inStep = $0.inStep }, render: Self.render)
        // As diff(1): out of step is status 1, so scripts can ask.
        if !inStep { throw ExitCode(1) }
    }

    static func render(_ result: LibraryExportResult, _ style: TerminalStyle) -> String {
        var lines: [String] = []
        if result.checked {
            lines.append(result.inStep
                ? Message.picturesFolderInStep(entries: result.entries, folder: result.folder).text()
                : style.yellow(Message.picturesFolderOutOfStep(
                    missing: result.missing.count, extra: result.extra.count, wrong: result.wrong.count, folder: result.folder).text()))
            lines += result.missing.map { Message.picturesFolderMissing($0).text() }
            lines += result.extra.map { Message.picturesFolderExtra($0).text() }
            lines += result.wrong.map { Message.picturesFolderWrong($0).text() }
            if !result.inStep && result.following { lines.append(style.dim(Message.picturesFolderFollowing.text())) }
        } else {
            lines.append(Message.picturesFolderRebuilt(
                entries: result.entries, made: result.made, removed: result.removed, folder: result.folder).text())
            if result.symlinks > 0 { lines.append(style.dim(Message.picturesFolderSymlinks(result.symlinks).text())) }
            lines += result.failures.map { style.red($0) }
        }
        return lines.joined(separator: "\n")
    }
}
