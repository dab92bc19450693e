import ArgumentParser
import CLIText
import Shared

struct PhotosCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photos", abstract: "Photos in the local library.", subcommands: [ListPhotos.self, PhotoStats.self, ShowPhoto.self])
}

struct ListPhotos: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List photos in the store (works offline; never waits on the network).")
    @OptionGroup var global: GlobalOptions

    @Flag(help: "Only liked photos.") var liked = false
    @Flag(help: "Only photos with edits.") var edited = false
    @Flag(help: "Only dismissed photos (hidden otherwise).") var dismissed = false
    @Option(help: "unsplash, nasa or local.") var source: String?
    @Option(help: "Colour bucket, e.g. blue, red, black_and_white.") var color: String?
    @Option(help: "Full-text search over title, description, tags and author.") var text: String?
    // Unconditional: "--sort -liked" must read "-liked" as the value, not as an option.
    @Option(parsing: .unconditional, help: "created, liked or fetched; prefix '-' for descending (default -fetched; -liked with --liked).") var sort: String?
    @Option(help: "At most this many (1–1000, default 50).") var limit: Int?
    @Option(help: "Skip this many.") var offset: Int?

    func request() throws -> PhotosListRequest {
        guard source.map({ PhotoSource(rawValue: $0) != nil }) ?? true else {
            throw ValidationError(Message.optionMustBeOneOf(option: "--source", values: PhotoSource.allCases.map(\.rawValue).joined(separator: ", ")).text())
        }
        guard sort.map({ PhotosListRequest.Sort(rawValue: $0) != nil }) ?? true else {
            throw ValidationError(
                Message.optionMustBeOneOf(option: "--sort", values: PhotosListRequest.Sort.allCases.map(\.rawValue).joined(separator: ", ")).text())
        }
        return PhotosListRequest(
            liked: liked ? true : nil, edited: edited ? true : nil, dismissed: dismissed ? true : nil,
            source: source.flatMap(PhotoSource.init(rawValue:)), color: color, text: text,
            sort: sort.flatMap(PhotosListRequest.Sort.init(rawValue:)), limit: limit, offset: offset)
    }

    func run() async throws {
        try await global.run(try request(), render: Self.render)
    }

    static func render(_ result: PhotosListResult, _ style: TerminalStyle) -> String {
        if result.photos.isEmpty { return (result.total == 0 ? Message.noPhotosMatch : .noPhotosOnPage(total: result.total)).text() }
        var table = Table([.id, .colour, .size, .liked, .author, .title], style)
        for photo in result.photos {
            table.rows.append([
                photo.id,
                photo.colorBucket ?? "-",
                photo.width.flatMap { w in photo.height.map { "\(w)×\($0)" } } ?? "-",
                photo.likedAt.map { Formatting.relative($0) } ?? "-",
                photo.author ?? "-",
                String((photo.title ?? "").prefix(60)),
            ])
        }
        let shown = result.offset + result.photos.count
        return table.render() + "\n" + style.dim(Message.rangeOfTotal(from: result.offset + 1, to: shown, total: result.total).text())
    }
}
