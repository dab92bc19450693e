import ArgumentParser
import CLIText
import Foundation
import Shared

// splashctl's followed feeds: follow, unfollow, feeds.

/// `topic SLUG` or `search QUERY...`, shared by follow and unfollow.
struct FeedArguments: ParsableArguments {
    @Argument(help: "topic or search.") var kind: String
    @Argument(help: "The topic's slug, or the query.") var value: [String]
    @Option(help: "For searches: unsplash (default) or nasa.") var source: String?

    func key() throws -> FeedKey {
        guard let kind = FeedKey.Kind(rawValue: kind) else { throw ValidationError(Message.followTopicOrSearch.text()) }
        guard !value.isEmpty else { throw ValidationError((kind == .topic ? Message.whichTopic : .whichSearch).text()) }
        guard source.map({ ["unsplash", "nasa"].contains($0) }) ?? true else { throw ValidationError(Message.optionMustBeOneOf(option: "--source", values: "unsplash, nasa").text()) }
        return FeedKey(kind: kind, value: value.joined(separator: " "), source: source.flatMap(PhotoSource.init(rawValue:)))
    }
}

struct FollowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow", abstract: "Keep a topic's or a search's newest photos fresh in the background.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var feed: FeedArguments
    @Option(help: "How many of the newest to keep fresh, 1 to 30 (default 30).") var keep: Int?

    func run() async throws {
        try await global.run(FeedsFollowRequest(feed: try feed.key(), keep: keep), render: FeedsCommand.render)
    }
}

struct UnfollowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unfollow", abstract: "Stop following a topic or a search.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var feed: FeedArguments

    func run() async throws {
        try await global.run(FeedsUnfollowRequest(feed: try feed.key()), render: FeedsCommand.render)
    }
}

struct FeedsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "feeds", abstract: "The topics and searches you follow.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run(FeedsListRequest(), render: Self.render)
    }

    static func render(_ result: FeedsListResult, _ style: TerminalStyle) -> String {
        if result.feeds.isEmpty { return Message.notFollowingAnything.text() }
        var table = Table([.kind, .source, .feed, .photos, .refreshed], style)
        for info in result.feeds {
            table.rows.append([
                info.feed.kind.rawValue, (info.feed.source ?? .unsplash).rawValue, info.feed.value, "\(info.photos)/\(info.keep)",
                info.refreshedAt.map { Formatting.relative($0) } ?? Message.notYet.text(),
            ])
        }
        return table.render()
    }
}
