import ArgumentParser
import CLIText
import Foundation
import Shared
import SplashClient

struct ShowPhoto: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: HelpText.photosShowAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Argument(help: .text(.photoID)) var id: String
    @Option(help: .text(.imageOption)) var image: ImageChoice = .auto
    @Flag(name: .shortAndLong, help: .text(.photosShowVerbose)) var verbose = false

    /// The details are asked first, so that the picture above them takes what room they leave: the
    /// first screen holds both. The details print whatever becomes of the picture, with one line saying
    /// why there is no picture when there is none.
    func run() async throws {
        guard !global.json else {
            try await global.run(PhotosShowRequest(id: id)) { photo, style in Self.render(photo, style, verbose: verbose) }
            return
        }
        try await global.withClient { client in
            let photo = try await client.send(PhotosShowRequest(id: id))
            let details = Self.render(photo, global.style, verbose: verbose)
            let environment = ProcessInfo.processInfo.environment
            let size = TerminalGraphics.windowSize()
            if let terminal = TerminalGraphics.spec(
                choice: image, json: false, isTerminal: Output.isTerminal(.output), size: size,
                environment: environment, noColor: global.noColor,
                share: Self.pictureShare(details: details, columns: size?.columns ?? 80, rows: size?.rows ?? 24),
                ask: { TerminalQuery.askControllingTerminal() },
                askCell: { TerminalQuery.askControllingTerminalForCell(columns: $0.columns, rows: $0.rows) })
            {
                do {
                    let picture = try await client.send(PhotosPictureRequest(id: id, terminal: terminal))
                    // Inside tmux a graphics sequence goes through to the terminal tmux runs in. Empty: the
                    // daemon's pictures.terminal is none.
                    if !picture.text.isEmpty {
                        Output.line(environment["TMUX"] != nil ? TerminalGraphics.throughTmux(picture, mode: picture.mode ?? terminal.mode) : picture.text)
                    }
                } catch let error as RPCError where error.kind != .notFound {
                    Output.line(global.style.dim(Message.noPicture(error.message).text()))
                }
            }
            Output.line(details)
        }
    }

    /// The part of the window's height the picture may take: what the details (wrapped at the window's
    /// width) and the prompt after them leave, at least a fifth and at most three quarters.
    static func pictureShare(details: String, columns: Int, rows: Int) -> Double {
        let width = max(1, columns)
        let detailRows = details.split(separator: "\n", omittingEmptySubsequences: false)
            .reduce(0) { $0 + max(1, (ContactSheet.visibleWidth(String($1)) + width - 1) / width) }
        return min(0.75, max(0.2, Double(rows - detailRows - 1) / Double(max(1, rows))))
    }

    /// The facts a person reads; with `verbose`, also the addresses and paths (every rendition's URL,
    /// the photo's page, the author's page, each file here).
    static func render(_ photo: PhotoDetail, _ style: TerminalStyle, verbose: Bool = false) -> String {
        var lines = [style.bold(photo.id) + (photo.title.map { "  \($0)" } ?? "")]
        if let author = photo.author {
            lines.append(Message.byAuthor(author).text() + (verbose ? photo.authorUrl.map { "  \(style.dim($0))" } ?? "" : ""))
        }
        if let description = photo.description, description != photo.title { lines.append(description) }
        if let width = photo.width, let height = photo.height { lines.append("\(width)×\(height)" + (photo.color.map { "  \($0)" } ?? "")) }
        if let created = photo.createdAt { lines.append(Message.takenOn(Formatting.absolute(created)).text()) }
        if let tags = photo.tags, !tags.isEmpty { lines.append(Message.tags(tags.joined(separator: ", ")).text()) }
        if let exif = photo.exif {
            let camera = [exif.make, exif.model].compactMap { $0 }.joined(separator: " ")
            let settings = [exif.focalLength.map { "\($0) mm" }, exif.aperture.map { "f/\($0)" }, exif.exposureTime.map { "\($0) s" },
                            exif.iso.map { "ISO \($0)" }].compactMap { $0 }.joined(separator: "  ")
            let text = [camera, settings].filter { !$0.isEmpty }.joined(separator: "  ")
            if !text.isEmpty { lines.append(Message.camera(text).text()) }
        }
        if let location = photo.location {
            let position = location.latitude.flatMap { lat in location.longitude.map { String(format: "%.4f, %.4f", lat, $0) } }
            lines.append(Message.location([location.name, position].compactMap { $0 }.joined(separator: "  ")).text())
        }
        if verbose, let page = photo.pageUrl { lines.append(Message.page(page).text()) }
        if let attribution = photo.attribution { lines.append(style.dim(attribution)) }
        for duplicate in photo.duplicates ?? [] {
            lines.append(style.yellow(Message.looksLike(id: duplicate.id).text()) + " " + Message.bitsApart(duplicate.distance).text())
        }
        if verbose, let renditions = photo.renditions {
            lines.append(Message.renditions.text())
            let width = renditions.map(\.variant.count).max() ?? 0
            for rendition in renditions {
                let pixels = rendition.width.map { w in rendition.height.map { "\(w)×\($0)" } ?? "\(w) px" }
                let size = [pixels, rendition.bytes.map { Formatting.bytes($0) }].compactMap { $0 }.joined(separator: "  ")
                let name = rendition.variant.padding(toLength: width, withPad: " ", startingAt: 0)
                lines.append("  \(name)  " + (size.isEmpty ? "" : size + "  ") + style.dim(rendition.url))
            }
        }
        lines.append((photo.likedAt.map { Message.likedWhen(Formatting.relative($0)) } ?? .notLiked).text())
        if let dismissed = photo.dismissedAt { lines.append(Message.dismissedWhen(Formatting.relative(dismissed)).text()) }
        if photo.files.isEmpty {
            lines.append(style.dim(Message.noLocalFile.text()))
        }
        // The daemon's words: why the original stays on the device that has it.
        if let note = photo.originalNote { lines.append(style.yellow(Message.originalNotShared(note).text())) }
        for file in photo.files where verbose {
            let state = file.present ? file.location.rawValue : style.red(Message.missingOnDisk(location: file.location.rawValue).text())
            lines.append("\(file.variant): \(file.path)  \(Formatting.bytes(file.bytes))  \(state)")
        }
        if let download = photo.download {
            switch download.state {
            case .downloading:
                lines.append(Message.downloadingBytes(bytes: Formatting.bytes(download.bytes ?? 0), total: download.total.map { Formatting.bytes($0) }).text())
            case .waiting:
                // The error is the daemon's words.
                let message = Message.downloadFailed(
                    attempts: download.attempts ?? 1, error: download.lastError ?? "?", nextTry: download.nextAttemptAt.map { Formatting.relativeFuture($0) })
                lines.append(style.yellow(message.text()))
            }
        }
        return lines.joined(separator: "\n")
    }
}
