#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CLIText
import Foundation
import Shared
import SplashClient

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: HelpText.importAbstract.text(),
        discussion: HelpText.importDiscussion.text())
    @OptionGroup var global: GlobalOptions
    @Argument(help: .text(.importPath)) var path: String?
    @Flag(name: .shortAndLong, help: .text(.importRecursive)) var recursive = false
    @Flag(help: .text(.importWatch)) var watch = false
    @Flag(help: .text(.importWatching)) var watching = false
    @Flag(help: .text(.importUnwatch)) var unwatch = false
    @Flag(help: .text(.importGooglePhotos)) var googlePhotos = false
    @Flag(help: .text(.noBrowserFlag)) var noBrowser = false

    static func absolute(_ path: String) -> String {
        ((path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path) as NSString).standardizingPath
    }

    func validate() throws {
        if googlePhotos, path != nil || watch || unwatch || watching { throw ValidationError(Message.googlePhotosAlone.text()) }
        if googlePhotos { return }
        if watching, path != nil || watch || unwatch { throw ValidationError(Message.watchingAlone.text()) }
        if !watching, path == nil { throw ValidationError(Message.importWhat.text()) }
        if unwatch, watch { throw ValidationError(Message.watchOrUnwatch.text()) }
    }

    func run() async throws {
        if googlePhotos { return try await importGooglePhotos() }
        if watching {
            return try await global.run(LibraryWatchingRequest(), render: Self.renderFolders)
        }
        let absolute = Self.absolute(path ?? "")
        if unwatch {
            return try await global.run(LibraryUnwatchRequest(path: absolute), render: Self.renderFolders)
        }
        let request = LibraryImportRequest(path: absolute, recursive: recursive ? true : nil, watch: watch ? true : nil)
        let showProgress = !global.json && Output.isTerminal(.error)
        try await global.run(request, whileWaiting: showProgress ? Self.showProgress : nil) { result, style in
            var lines: [String] = []
            var summary = [Message.importedPhotos(result.imported.count)]
            if result.alreadyImported > 0 { summary.append(.alreadyInLibrary(result.alreadyImported)) }
            if result.ignored > 0 { summary.append(.otherFilesIgnored(result.ignored)) }
            lines.append(summary.map { $0.text() }.joined(separator: ", "))
            let duplicate = Message.duplicate.text(), failed = Message.failed.text()
            let width = max(duplicate.count, failed.count) + 2
            func pad(_ word: String) -> String { String(repeating: " ", count: width - word.count) }
            for item in result.duplicates {
                lines.append(style.yellow(duplicate) + pad(duplicate)
                    + Message.duplicateSkipped(path: item.path, of: item.duplicateOf, distance: item.distance).text())
            }
            // The error is the daemon's words.
            for failure in result.failed {
                lines.append(style.red(failed) + pad(failed) + "\(failure.path): \(failure.error)")
            }
            if watch { lines.append(style.green(Message.nowWatching(absolute).text())) }
            return lines.joined(separator: "\n")
        }
    }

    /// The person picks in Google Photos (the picker opened in their browser, or its address printed);
    /// the daemon imports what was picked by itself; this follows it with a progress bar and prints the
    /// outcome of each pick that was not imported.
    func importGooglePhotos() async throws {
        try await global.withClient { client in
            let start = try await client.send(GooglePickRequest())
            if noBrowser || !Browser.open(start.pickerUri, environment: ProcessInfo.processInfo.environment) {
                Output.prompt(Message.pickInGooglePhotos(url: start.pickerUri).text() + "\n")
            } else {
                Output.prompt(Message.pickingInBrowser(url: start.pickerUri).text() + "\n")
            }
            let showProgress = !global.json && Output.isTerminal(.error)
            var bar: ProgressBar?
            var picks = try await client.send(GooglePicksRequest(session: start.session, waitSeconds: 5))
            while picks.state == "picking" || picks.state == "importing" {
                if showProgress, picks.total > 0 {
                    if bar == nil { bar = ProgressBar(total: picks.total) }
                    bar?.draw(done: picks.total - picks.waiting)
                }
                picks = try await client.send(GooglePicksRequest(session: start.session, waitSeconds: 5))
            }
            bar?.clear()
            if global.json { return Output.json(picks) }
            Output.line(Self.render(picks, global.style))
            if picks.state != "done" { throw ExitCode(ErrorKind.rejected.exitCode) }
        }
    }

    static func render(_ picks: GooglePicks, _ style: TerminalStyle) -> String {
        var lines: [String] = []
        switch picks.state {
        case "expired", "failed": lines.append(style.red(Message.googlePicksEnded(picks.detail ?? picks.state).text()))
        default: break
        }
        lines.append(Message.googlePicksSummary(imported: picks.imported, duplicates: picks.duplicates, skipped: picks.skipped, failed: picks.failed).text())
        for pick in picks.picks where pick.state != "imported" && pick.state != "waiting" {
            let name = pick.filename ?? pick.item
            let word = pick.state == "duplicate" ? style.yellow(Message.duplicate.text()) : pick.state == "failed" ? style.red(Message.failed.text()) : style.dim(pick.state)
            lines.append(word + "  " + name + (pick.detail.map { ": " + $0 } ?? ""))
        }
        return lines.joined(separator: "\n")
    }

    static func renderFolders(_ result: WatchedFoldersResult, _ style: TerminalStyle) -> String {
        guard !result.folders.isEmpty else { return Message.noFoldersWatched.text() }
        return result.folders.map { folder in
            folder.path + (folder.recursive ? " " + style.dim(Message.withSubfolders.text()) : "")
                + "  " + style.dim(Message.watchedSince(Formatting.relative(folder.since)).text())
        }.joined(separator: "\n")
    }

    /// A progress bar on stderr fed by `import.progress` events on a second connection.
    static func showProgress(_ socketPath: String) async {
        guard let watcher = try? CommandEnvironment.current.connect(socketPath),
              (try? await watcher.send(SubscribeRequest(types: [EventType.importProgress.rawValue]))) != nil
        else { return }
        var bar: ProgressBar?
        await withTaskCancellationHandler {
            while !Task.isCancelled, let event = try? await watcher.nextEvent() {
                if case .importProgress(let progress) = event.event {
                    if bar == nil { bar = ProgressBar(total: max(progress.total, 1)) }
                    bar?.draw(done: progress.done)
                }
            }
        } onCancel: {
            Task { await watcher.close() }
        }
        bar?.clear()
    }
}
