import ArgumentParser
import CLIText
import Shared

struct PhotosCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photos", abstract: HelpText.photosAbstract.text(), subcommands: [ListPhotos.self, PhotoStats.self, ShowPhoto.self])
}

struct ListPhotos: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: HelpText.photosListAbstract.text())
    @OptionGroup var global: GlobalOptions

    @Flag(help: .text(.photosListLiked)) var liked = false
    @Flag(help: .text(.photosListEdited)) var edited = false
    @Flag(help: .text(.photosListDismissed)) var dismissed = false
    @Option(help: .text(.photosListSource)) var source: String?
    @Option(help: .text(.photosListColor)) var color: String?
    @Option(help: .text(.photosListText)) var text: String?
    // Unconditional: "--sort -liked" must read "-liked" as the value, not as an option.
    @Option(parsing: .unconditional, help: .text(.photosListSort)) var sort: String?
    @Option(help: .text(.photosListLimit)) var limit: Int?
    @Option(help: .text(.photosListOffset)) var offset: Int?
    @OptionGroup var sheet: GridOptions

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
        let table = !sheet.drawsSheet(json: global.json)
        var ids: [String] = []
        try await global.run(try request(), observe: { ids = $0.photos.map(\.id) }) { result, style in Self.render(result, style, table: table) }
        if !table { try await ContactSheet.print(ids: ids, global: global, choice: sheet.image) }
    }

    static func render(_ result: PhotosListResult, _ style: TerminalStyle, table showsTable: Bool = true) -> String {
        if result.photos.isEmpty { return (result.total == 0 ? Message.noPhotosMatch : .noPhotosOnPage(total: result.total)).text() }
        let range = style.dim(Message.rangeOfTotal(from: result.offset + 1, to: result.offset + result.photos.count, total: result.total).text())
        if !showsTable { return range }
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
        return table.render() + "\n" + range
    }
}
