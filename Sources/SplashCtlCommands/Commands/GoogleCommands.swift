import ArgumentParser
import CLIText
import Foundation
import Shared
import SplashClient

// splashctl google: connect, status, disconnect.

struct GoogleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "google", abstract: HelpText.googleAbstract.text(),
        subcommands: [GoogleStatusCommand.self, GoogleConnectCommand.self, GoogleDisconnectCommand.self],
        defaultSubcommand: GoogleStatusCommand.self)

    static func render(_ status: GoogleStatus, _ style: TerminalStyle) -> String {
        guard status.configured else { return style.yellow(Message.googleNotConfigured.text()) }
        guard status.connected, let since = status.connectedAt, let until = status.expiresAt else {
            return status.endedBecause.map { style.yellow(Message.googleEnded(reason: $0).text()) } ?? Message.googleNotConnected.text()
        }
        return style.green(Message.googleConnected(since: Formatting.relative(since), tokenUntil: Formatting.clock(until)).text())
    }
}

struct GoogleStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: HelpText.googleStatusAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Flag(help: .text(.googleRefreshFlag)) var refresh = false

    func run() async throws {
        try await global.run(GoogleStatusRequest(refresh: refresh ? true : nil)) { status, style in GoogleCommand.render(status, style) }
    }
}

struct GoogleConnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "connect", abstract: HelpText.googleConnectAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Flag(help: .text(.noBrowserFlag)) var noBrowser = false

    /// As `login --provider`: the browser goes to Google and comes back to the daemon (or the person
    /// pastes where it ended); asked again each minute until then.
    func run() async throws {
        try await global.withClient { client in
            let start = try await client.send(GoogleConnectRequest())
            let pasted = Browser.send(to: start.url, noBrowser: noBrowser)
            var status = try await client.send(GoogleConnectFinishRequest(flow: start.flow, callbackUrl: pasted))
            while !status.connected {
                status = try await client.send(GoogleConnectFinishRequest(flow: start.flow))
            }
            if global.json { Output.json(status) } else { Output.line(GoogleCommand.render(status, global.style)) }
        }
    }
}

struct GoogleDisconnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "disconnect", abstract: HelpText.googleDisconnectAbstract.text())
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run(GoogleDisconnectRequest()) { result, _ in Message.googleDisconnected(told: result.googleNotified).text() }
    }
}
