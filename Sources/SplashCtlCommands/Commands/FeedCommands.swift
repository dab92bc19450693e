import ArgumentParser
import CLIText
import Foundation
import Shared

// splashctl's followed feeds: follow, unfollow, feeds.

/// `topic SLUG` or `search QUERY...`, shared by follow and unfollow.
struct FeedArguments: ParsableArguments {
    @Argument(help: .text(.feedKind)) var kind: String
    @Argument(help: .text(.feedValue)) var value: [String]
    @Option(help: .text(.feedSource)) var source: String?

    func key() throws -> FeedKey {
        guard let kind = FeedKey.Kind(rawValue: kind) else { throw ValidationError(Message.followTopicOrSearch.text()) }
        guard !value.isEmpty else { throw ValidationError((kind == .topic ? Message.whichTopic : .whichSearch).text()) }
        guard source.map({ ["unsplash", "nasa"].contains($0) }) ?? true else { throw ValidationError(Message.optionMustBeOneOf(option: "--source", values: "unsplash, nasa").text()) }
        return FeedKey(kind: kind, value: value.joined(separator: " "), source: source.flatMap(PhotoSource.init(rawValue:)))
    }
}

struct FollowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow", abstract: HelpText.followAbstract.text())
    @OptionGroup var global: GlobalOptions
    @OptionGroup var feed: FeedArguments
    @Option(help: .text(.followKeep)) var keep: Int?

    func run() async throws {
        try await global.run(FeedsFollowRequest(feed: try feed.key(), keep: keep), render: FeedsCommand.render)
    }
}

struct UnfollowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unfollow", abstract: HelpText.unfollowAbstract.text())
    @OptionGroup var global: GlobalOptions
    @OptionGroup var feed: FeedArguments

    func run() async throws {
        try await global.run(FeedsUnfollowRequest(feed: try feed.key()), render: FeedsCommand.render)
    }
}

struct FeedsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "feeds", abstract: HelpText.feedsAbstract.text())
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
