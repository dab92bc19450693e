import ArgumentParser
import CLIText
import Foundation
import Shared
import SplashClient

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: HelpText.watchAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Option(help: .text(.watchType)) var type: [String] = []

    func run() async throws {
        let style = global.style
        try await global.withClient { client in
            let subscription = try await client.send(SubscribeRequest(types: type.isEmpty ? nil : type))
            if global.json {
                Output.json(subscription)
            } else {
                Output.line(style.dim(Message.watchingFrom(seq: Int(subscription.seq)).text()))
                Output.line(StatusCommand.render(subscription.snapshot, style))
            }
            while let event = try await client.nextEvent() {
                if global.json {
                    Output.json(event)
                } else {
                    Output.line(Self.describe(event, style))
                }
            }
        }
    }

    static func describe(_ notification: EventNotification, _ style: TerminalStyle) -> String {
        let text: String = switch notification.event {
        case .connectivityChanged(let status): "\(status.state.rawValue): \(status.reasonText())"
        case .liveChanged(let live): live.state.rawValue + (live.reasonText().map { ": \($0)" } ?? "")
        case .desktopChanged(let desktop): StatusCommand.desktop(desktop, style)
        case .pauseChanged(let pause): PauseCommand.describe(pause, style)
        case .accountChanged(let account): account.state.rawValue + (account.email.map { " (\($0))" } ?? "")
        case .outboxChanged(let outbox): Message.outboxCounts(pending: outbox.pending, inFlight: outbox.inFlight, rejected: outbox.rejected).text()
        case .libraryChanged(let library): Message.libraryCountsShort(photos: library.photos, liked: library.liked, edited: library.edited).text()
        case .photoChanged(let change): "\(change.id) \(change.change.rawValue)"
        case .imagesChanged(let images):
            "\(images.photo) \(images.change.rawValue)\(images.error.map { ": \($0)" } ?? "") "
                + Message.imageQueueCounts(downloading: images.downloading, waiting: images.waiting).text()
        case .importProgress(let progress):
            "\(progress.done)/\(progress.total) \(progress.current ?? Message.importDone.text()): "
                + Message.importCounts(imported: progress.imported, duplicates: progress.duplicates, failed: progress.failed).text()
        case .profileUpdated(let profile): "\(profile.username ?? "?") (\(profile.sync.rawValue))"
        case .usersChanged(let users): Message.accountCount(users.count).text() + (users.recent.first.map { " · \($0.username)" } ?? "")
        case .searchRefreshed(let refreshed):
            "'\(refreshed.request.query)' " + (refreshed.result.map {
                Message.searchPage(page: $0.page, pages: $0.totalPages, total: $0.total, source: $0.source.rawValue).text()
            } ?? style.yellow(refreshed.error ?? ""))
        case .daemonReloaded: Message.configurationReloaded.text()
        case .daemonStopping: Message.daemonStopping.text()
        case .eventsMissed(let count): style.yellow(Message.eventsMissed(count).text())
        }
        return "\(style.dim(Formatting.clock(notification.time)))  \(style.bold(notification.event.type.rawValue))  \(text)"
    }
}
