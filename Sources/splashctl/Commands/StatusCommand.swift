import ArgumentParser
import Foundation
import Shared

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show what the daemon is doing.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run(StatusRequest()) { status, style in
            var text = Self.render(status, style)
            // Until setup has run once: the way in. Never again after.
            if !SetupState.isDone(environment: ProcessInfo.processInfo.environment) {
                text += "\n" + style.dim("First time? splashctl setup walks you through the backend, keys and signing in.")
            }
            return text
        }
    }

    static func render(_ status: DaemonStatus, _ style: TerminalStyle) -> String {
        let account: String = switch status.account.state {
        case .signedOut: style.yellow("signed out")
        case .signedIn: style.green("signed in") + " as \(status.account.username ?? status.account.email ?? "?")"
        case .signedInOffline: style.yellow("signed in (offline)") + " as \(status.account.username ?? status.account.email ?? "?")"
        }
        let connectivity: String = switch status.connectivity.state {
        case .online: style.green("online")
        case .offline: style.red("offline") + " — \(status.connectivity.reason)"
        case .degraded: style.yellow("degraded") + " — \(status.connectivity.reason)"
        case .unknown: style.dim("unknown") + " — \(status.connectivity.reason)"
        }
        let outbox = status.outbox
        let library = status.library
        var table = Table(headers: ["", ""])
        table.rows = [
            ["account", account],
            ["connectivity", connectivity],
            ["outbox", "\(outbox.pending) pending · \(outbox.inFlight) in flight · \(outbox.rejected) rejected"],
            ["synced", status.lastSyncAt.map { Formatting.relative($0) } ?? "not since start"],
            ["library", "\(library.photos) photos · \(library.liked) liked · \(library.edited) edited · \(library.dismissed) dismissed"],
            ["files", "\(library.files) (\(Formatting.bytes(library.bytes)))"],
            ["socket", status.directories.socket],
            ["state", status.directories.state],
            ["library dir", status.directories.data],
            ["cache", status.directories.cache],
        ]
        let header = style.bold("splashd \(status.version)") + " — pid \(status.pid), up \(Formatting.duration(status.uptimeSeconds))"
        return header + "\n" + table.render().split(separator: "\n").dropFirst().map { "  " + $0 }.joined(separator: "\n")
    }
}
