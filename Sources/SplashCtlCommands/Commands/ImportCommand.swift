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
        abstract: "Add a folder's JPEG, PNG and WebP files to the library as local photos.",
        discussion: """
            Files stay where they are. Each gets its dimensions, its EXIF date and a perceptual hash; a
            near-duplicate of a photo already in the library is reported and skipped
            (import.duplicate_threshold). A file that cannot be read is reported and the rest go on.
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "A folder (or one file).") var path: String
    @Flag(name: .shortAndLong, help: "Into subfolders too.") var recursive = false

    func run() async throws {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let request = LibraryImportRequest(path: (absolute as NSString).standardizingPath, recursive: recursive ? true : nil)
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
            return lines.joined(separator: "\n")
        }
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
