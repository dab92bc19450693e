import ArgumentParser
import CLIText
import Foundation
import Shared

// splashctl's Unsplash browsing: random, topics, topic.

struct RandomCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "random", abstract: HelpText.randomAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Option(help: .text(.randomCount)) var count: Int?
    @Option(help: .text(.randomTopic)) var topic: String?
    @Option(help: .text(.randomQuery)) var query: String?
    @OptionGroup var sheet: GridOptions

    func run() async throws {
        let table = !sheet.drawsSheet(json: global.json)
        var ids: [String] = []
        try await global.run(PhotosRandomRequest(count: count, topic: topic, query: query), observe: { ids = $0.photos.map(\.id) }) { result, style in
            table ? PhotoTable.render(result.photos, style) : ""
        }
        if !table { try await ContactSheet.print(ids: ids, global: global, choice: sheet.image) }
    }
}

struct TopicsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "topics", abstract: HelpText.topicsAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Option(help: .text(.topicsOrder)) var order: String?

    func run() async throws {
        try await global.run(TopicsListRequest(order: order)) { result, style in
            var table = Table([.slug, .title, .photos, .about], style)
            for topic in result.topics {
                table.rows.append([topic.slug, topic.title, topic.totalPhotos.map(String.init) ?? "-", String((topic.description ?? "").prefix(60))])
            }
            let stale = result.stale
                ? StaleNote.lines(Message.storedTopicsFrom(Formatting.relative(result.fetchedAt)), reason: result.staleReason, retryAt: result.retryAt, style)
                : []
            return (stale + [table.render()]).joined(separator: "\n")
        }
    }
}

struct TopicCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "topic", abstract: HelpText.topicAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Argument(help: .text(.topicSlug)) var slug: String
    @Option(help: .text(.topicOrder)) var order: String?
    @Option(help: .text(.page)) var page: Int?
    @Option(help: .text(.topicPerPage)) var perPage: Int?
    @Flag(help: .text(.topicRefresh)) var refresh = false
    @OptionGroup var sheet: GridOptions

    func run() async throws {
        let request = TopicPhotosRequest(slug: slug, order: order, page: page, perPage: perPage, refresh: refresh ? true : nil)
        try await SearchCommand.show(request, global: global, sheet: sheet)
    }
}

/// The photo table search, random and topic share.
enum PhotoTable {
    static func render(_ photos: [PhotoSummary], _ style: TerminalStyle) -> String {
        if photos.isEmpty { return Message.noPhotos.text() }
        var table = Table([.id, .colour, .size, .liked, .by, .title], style)
        for photo in photos {
            table.rows.append([
                photo.id, photo.colorBucket ?? "-",
                photo.width.flatMap { w in photo.height.map { "\(w)×\($0)" } } ?? "-",
                photo.likedAt == nil ? "" : "♥", photo.author ?? "-", String((photo.title ?? "").prefix(50)),
            ])
        }
        return table.render()
    }
}
