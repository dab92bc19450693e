import ArgumentParser
import CLIText
import Foundation
import Shared
import SplashClient

// splashctl's search and history.

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: HelpText.searchAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Argument(help: .text(.searchQuery)) var query: [String] = []
    @Option(help: .text(.searchSource)) var source: String?
    @Option(help: .text(.searchColor)) var color: String?
    @Option(help: .text(.searchOrientation)) var orientation: String?
    @Option(help: .text(.searchOrder)) var order: String?
    @Option(help: .text(.searchMedia)) var media: String?
    @Option(help: .text(.searchYearFrom)) var yearFrom: Int?
    @Option(help: .text(.searchYearTo)) var yearTo: Int?
    @Option(help: .text(.page)) var page: Int?
    @Option(help: .text(.searchPerPage)) var perPage: Int?
    @Option(help: .text(.searchAgain)) var again: Int?
    @Flag(help: .text(.searchRefresh)) var refresh = false
    @OptionGroup var sheet: GridOptions

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
        try await Self.show(request, global: global, sheet: sheet)
    }

    /// A page of results: the table, or with `--grid` the contact sheet under the page's notes.
    static func show<R: RPCRequest>(_ request: R, global: GlobalOptions, sheet: GridOptions) async throws where R.Result == PhotosSearchResult {
        let table = !sheet.drawsSheet(json: global.json)
        var ids: [String] = []
        try await global.run(request, observe: { ids = $0.photos.map(\.id) }) { result, style in render(result, style, table: table) }
        if !table { try await ContactSheet.print(ids: ids, global: global, choice: sheet.image) }
    }

    static func render(_ result: PhotosSearchResult, _ style: TerminalStyle) -> String {
        render(result, style, table: true)
    }

    static func render(_ result: PhotosSearchResult, _ style: TerminalStyle, table: Bool) -> String {
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
        if table { lines.append(PhotoTable.render(result.photos, style)) }
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
        commandName: "history", abstract: HelpText.historyAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Option(help: .text(.historySource)) var source: String?

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
