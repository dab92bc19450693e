import ArgumentParser
import CLIText
import Foundation
import Shared
import SplashClient

// splashctl's search and history.

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search Unsplash or NASA (a search run before answers at once from the store and refreshes in the background).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "What to look for.") var query: [String] = []
    @Option(help: "unsplash (default) or nasa.") var source: String?
    @Option(help: "Unsplash: a colour, e.g. blue, red, black_and_white.") var color: String?
    @Option(help: "Unsplash: landscape, portrait or squarish.") var orientation: String?
    @Option(help: "Unsplash: relevant or latest.") var order: String?
    @Option(help: "NASA: image, video or audio.") var media: String?
    @Option(help: "NASA: earliest year.") var yearFrom: Int?
    @Option(help: "NASA: latest year.") var yearTo: Int?
    @Option(help: "Page, from 1.") var page: Int?
    @Option(help: "Results per page (Unsplash up to 30, NASA up to 100).") var perPage: Int?
    @Option(help: "Run search number N of `splashctl history` again.") var again: Int?
    @Flag(help: "Wait for fresh results (or the source's error) instead of the results kept from before.") var refresh = false

    func run() async throws {
        var request: PhotosSearchRequest
        if let again {
            var found: PhotosSearchRequest?
            try await global.withClient { client in
                found = try await client.send(SearchHistoryRequest()).searches.first { $0.number == again }?.request
            }
            guard let found else { throw ValidationError(Message.noSearchNumber(again).text()) }
            request = found
            if let page { request.page = page }
        } else {
            guard !query.isEmpty else { throw ValidationError(Message.whatToSearchFor.text()) }
            guard source.map({ ["unsplash", "nasa"].contains($0) }) ?? true else { throw ValidationError(Message.optionMustBeOneOf(option: "--source", values: "unsplash, nasa").text()) }
            request = PhotosSearchRequest(
                query: query.joined(separator: " "), source: source.flatMap(PhotoSource.init(rawValue:)), color: color,
                orientation: orientation, order: order, media: media, yearFrom: yearFrom, yearTo: yearTo, page: page, perPage: perPage)
        }
        if refresh { request.refresh = true }
        try await global.run(request, render: Self.render)
    }

    static func render(_ result: PhotosSearchResult, _ style: TerminalStyle) -> String {
        var lines: [String] = []
        if result.stale {
            lines.append(contentsOf: StaleNote.lines(
                Message.storedResultsFrom(Formatting.relative(result.fetchedAt)), reason: result.staleReason, retryAt: result.retryAt, style))
            if result.refreshing == true { lines.append(style.dim(Message.refreshingInBackground.text())) }
        }
        if result.photos.isEmpty {
            lines.append(Message.nothingFoundFor(query: result.query).text())
            return lines.joined(separator: "\n")
        }
        lines.append(PhotoTable.render(result.photos, style))
        lines.append(style.dim(Message.searchPage(page: result.page, pages: result.totalPages, total: result.total, source: result.source.rawValue).text()))
        return lines.joined(separator: "\n")
    }
}

/// The lines above results the store answered with: from when, why, and when the service takes
/// requests again.
enum StaleNote {
    static func lines(_ from: Message, reason: String?, retryAt: Date?, _ style: TerminalStyle) -> [String] {
        var lines = [style.yellow(from.text())]
        if let reason { lines.append(style.yellow(Message.staleBecause(reason).text())) }
        if let retryAt { lines.append(style.yellow(Message.roomAgainBy(Formatting.clock(retryAt)).text())) }
        return lines
    }
}

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Your last searches, newest first (run one again with search --again N).")
    @OptionGroup var global: GlobalOptions
    @Option(help: "Only unsplash or nasa.") var source: String?

    func run() async throws {
        try await global.run(SearchHistoryRequest(source: source.flatMap(PhotoSource.init(rawValue:)))) { result, style in
            if result.searches.isEmpty { return Message.noSearchesYet.text() }
            var table = Table([.number, .source, .query, .filters, .results, .when], style)
            for entry in result.searches {
                let r = entry.request
                let filters = [r.color, r.orientation, r.order, r.media, r.yearFrom.map { Message.fromYear($0).text() }, r.yearTo.map { Message.toYear($0).text() }]
                    .compactMap { $0 }.joined(separator: ", ")
                table.rows.append([
                    "\(entry.number)", (r.source ?? .unsplash).rawValue, r.query, filters.isEmpty ? "-" : filters,
                    entry.total.map(String.init) ?? "-", Formatting.relative(entry.lastRunAt),
                ])
            }
            return table.render()
        }
    }
}
