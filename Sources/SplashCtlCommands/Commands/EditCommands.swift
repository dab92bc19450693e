#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CLIText
import Foundation
import Shared
import SplashClient

// splashctl's editing commands: edit (save or preview), filters, edits list / rm.

struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: HelpText.editAbstract.text(),
        discussion: HelpText.editDiscussion.text())
    @OptionGroup var global: GlobalOptions
    @Argument(help: .text(.photoID)) var id: String
    @Option(name: .customLong("filter"), help: .text(.editFilter)) var filters: [String] = []
    @Option(help: .text(.editPreview)) var preview: String?
    @Option(help: .text(.editSize)) var size: Int?
    @Flag(help: .text(.editOpen)) var open = false

    func validate() throws {
        if filters.isEmpty { throw ValidationError(Message.needAFilter.text()) }
        if preview == nil && (size != nil || open) { throw ValidationError(Message.sizeAndOpenNeedPreview.text()) }
    }

    func run() async throws {
        var steps: [FilterStep] = []
        do throws(RPCError) {
            for filter in filters { steps.append(try FilterStep(parsing: filter)) }
        } catch {
            Output.error(error.text())
            throw ExitCode(ErrorKind.invalidInput.exitCode)
        }
        guard let preview else {
            try await global.run(EditsCreateRequest(id: id, filters: steps)) { edit, style in
                let filters = edit.filters.map(\.description).joined(separator: " → ")
                var lines = [Message.savedEdit(edit: style.bold(edit.editId), photo: edit.photoId, filters: filters).text()]
                if let path = edit.path { lines.append("  " + path) }
                let state: Message = switch edit.state {
                case "synced": .uploaded
                case "guest": .keptAsGuest
                default: .queuedForUpload
                }
                lines.append("  " + state.text())
                return lines.joined(separator: "\n")
            }
            return
        }
        let (command, chosen) = (self, steps)
        try await Interruption.cancelOnInterrupt {
            if preview == "-" {
                try await command.drawPreview(chosen)
            } else {
                try await command.writePreview(chosen, to: preview)
            }
        }
    }

    private func writePreview(_ steps: [FilterStep], to preview: String) async throws {
        try await global.withClient { client in
            let result = try await client.send(EditsPreviewRequest(id: id, filters: steps, size: size))
            do {
                try result.jpeg.write(to: URL(fileURLWithPath: preview), options: .atomic)
            } catch {
                Output.error(Message.cannotWrite(path: preview, reason: error.localizedDescription).text())
                throw ExitCode(73)  // EX_CANTCREAT
            }
            if global.json {
                Output.json(PreviewWritten(preview: preview, width: result.width, height: result.height, bytes: result.jpeg.count))
            } else {
                Output.line(Message.previewWritten(width: result.width, height: result.height, path: preview).text())
            }
            if open { Self.openWithDesktop(preview) }
        }
    }

    /// `--preview` with no file: the original and the filtered preview side by side, drawn with symbols
    /// (two pictures on the same lines), each in half the terminal's width.
    func drawPreview(_ steps: [FilterStep]) async throws {
        let width = TerminalGraphics.windowSize()?.columns ?? 80
        let half = max(1, (width - ContactSheet.gap) / 2)
        let terminal = TerminalGraphics.spec(
            choice: .symbols, json: false, isTerminal: true, size: TerminalGraphics.windowSize(),
            environment: ProcessInfo.processInfo.environment, noColor: global.noColor
        ).flatMap { spec -> TerminalSpec? in
            guard !global.json else { return nil }
            var spec = spec
            spec.columns = half
            spec.rows = min(spec.rows, max(1, half / 3))
            return spec
        }
        try await global.run(EditsPreviewRequest(id: id, filters: steps, size: size, terminal: terminal)) { result, style in
            let rows = max(result.original?.rows ?? 1, result.filtered?.rows ?? 1)
            return ContactSheet.render(
                tiles: [(Label.original.text(), result.original?.text), (Label.filtered.text(), result.filtered?.text)],
                width: width, tileColumns: half, tileRows: rows, style: style)
        }
    }

    /// Hands the file to the desktop's viewer when there is one; says so when there is none.
    static func openWithDesktop(_ path: String) {
        let candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/xdg-open" }
        guard let opener = candidates.first(where: { access($0, X_OK) == 0 }) else {
            Output.error(Message.xdgOpenMissing(path: path).text())
            return
        }
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(opener), strdup(path), nil]
        defer { argv.forEach { free($0) } }
        if posix_spawn(&pid, opener, nil, nil, argv, environ) != 0 {
            Output.error(Message.cannotStartXdgOpen(path: path).text())
        }
    }
}

/// What `edit --preview --json` prints: where the preview went (its bytes are in the file, not on stdout).
struct PreviewWritten: Encodable {
    var preview: String
    var width: Int
    var height: Int
    var bytes: Int
}

struct FiltersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "filters", abstract: HelpText.filtersAbstract.text())
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run(FiltersListRequest()) { result, style in
            // What each filter does, then its parameters one to a line, in the order `--filter
            // name:p1,p2` takes them: three columns were 140 cells wide, past any terminal.
            var table = Table([.filter, .whatItDoes], style)
            for filter in result.filters {
                table.rows.append([filter.name, FilterText.summary(of: filter)])
                for p in filter.parameters {
                    let range = "\(Self.number(p.minimum))…\(Self.number(p.maximum)) (\(Self.number(p.defaultValue)))"
                    table.rows.append(["", "\(style.bold(p.name)) \(range): \(FilterText.summary(of: p, in: filter))"])
                }
            }
            return table.render(width: TerminalGraphics.windowSize()?.columns) + "\n" + Message.filtersExample.text()
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

struct EditsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edits", abstract: HelpText.editsAbstract.text(), subcommands: [EditsList.self, EditsRemove.self], defaultSubcommand: EditsList.self)
}

struct EditsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: HelpText.editsListAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Argument(help: .text(.editsListID)) var id: String?

    func run() async throws {
        try await global.run(EditsListRequest(id: id)) { result, style in
            if result.edits.isEmpty { return (id.map { Message.noEditsOf($0) } ?? .noEditsYet).text() }
            var table = Table([.edit, .photo, .filters, .state, .saved, .file], style)
            for edit in result.edits {
                table.rows.append([
                    String(edit.editId.prefix(8)), edit.photoId, edit.filters.map(\.description).joined(separator: " "),
                    edit.state, Formatting.relative(edit.createdAt), edit.path ?? Message.downloadingParenthesized.text(),
                ])
            }
            return table.render()
        }
    }
}

struct EditsRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: HelpText.editsRemoveAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Argument(help: .text(.editsRemoveID)) var edit: String

    func run() async throws {
        try await global.withClient { client in
            let editId = try await Self.resolve(edit, client: client)
            let request = EditsDeleteRequest(editId: editId)
            if global.json {
                Output.json(try await client.sendRaw(request))
                return
            }
            let result = try await client.send(request)
            let message: Message = !result.changed ? .editAlreadyRemoved(editId)
                : result.queued ? .editRemovedServerHearsLater(editId) : .editRemovedNeverLeft(editId)
            Output.line(message.text())
        }
    }

    /// A full id as is; a prefix through edits.list, refused as a usage error when it begins none or
    /// several (a whole id the daemon does not know is its `not_found`).
    static func resolve(_ text: String, client: SplashClient) async throws -> String {
        if UUID(uuidString: text) != nil { return text.lowercased() }
        let edits = try await client.send(EditsListRequest()).edits.map(\.editId)
        let prefix = text.lowercased()
        guard let editId = try ShortID.resolve(prefix, among: edits, ambiguous: { .prefixMatchesEdits(prefix: text, count: $0) }) else {
            throw ValidationError(Message.noEditStartsWith(text).text())
        }
        return editId
    }
}
