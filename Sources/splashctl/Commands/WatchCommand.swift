import ArgumentParser
import Foundation
import Shared
import SplashClient

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Print the daemon's events as they happen, until interrupted.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "Only these event types (repeatable), e.g. photo.changed.") var type: [String] = []

    func run() async throws {
        let style = global.style
        try await global.withClient { client in
            let subscription = try await client.send(SubscribeRequest(types: type.isEmpty ? nil : type))
            if global.json {
                Output.json(subscription)
            } else {
                Output.line(style.dim("watching from event \(subscription.seq); Ctrl-C to stop"))
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
        case .connectivityChanged(let status): "\(status.state.rawValue): \(status.reason)"
        case .accountChanged(let account): account.state.rawValue + (account.email.map { " (\($0))" } ?? "")
        case .outboxChanged(let outbox): "\(outbox.pending) pending, \(outbox.inFlight) in flight, \(outbox.rejected) rejected"
        case .libraryChanged(let library): "\(library.photos) photos, \(library.liked) liked, \(library.edited) edited"
        case .photoChanged(let change): "\(change.id) \(change.change.rawValue)"
        case .imagesChanged(let images):
            "\(images.photo) \(images.change.rawValue)\(images.error.map { ": \($0)" } ?? "") (\(images.downloading) downloading, \(images.waiting) waiting)"
        case .importProgress(let progress):
            "\(progress.done)/\(progress.total) \(progress.current ?? "done"): \(progress.imported) imported, \(progress.duplicates) duplicates, \(progress.failed) failed"
        case .profileUpdated(let profile): "\(profile.username ?? "?") (\(profile.sync.rawValue))"
        case .daemonReloaded: "configuration reloaded"
        case .daemonStopping: "the daemon is stopping"
        case .eventsMissed(let count): style.yellow("\(count) events missed (reading too slowly)")
        }
        return "\(style.dim(Formatting.clock(notification.time)))  \(style.bold(notification.event.type.rawValue))  \(text)"
    }
}
