#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import Shared
import SplashClient

// splashctl's sync and queue commands.

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Send queued changes now; --wait blocks until the queue drains or fails.")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Wait until nothing is left to send.") var wait = false
    @Option(help: "With --wait: give up after this many seconds (default 60).") var timeout: Int?

    func run() async throws {
        let request = SyncNowRequest(wait: wait ? true : nil, timeoutSeconds: timeout)
        let showProgress = wait && !global.json && isatty(STDERR_FILENO) == 1
        try await global.run(request, whileWaiting: showProgress ? Self.showProgress : nil) { result, style in
            var lines: [String] = []
            if wait { lines.append("sent \(result.pushed) change\(result.pushed == 1 ? "" : "s")") }
            lines.append(result.drained ? style.green("nothing left to send") : "\(result.pending + result.inFlight) still queued")
            if result.rejected > 0 { lines.append(style.yellow("\(result.rejected) refused by the server: splashctl queue --rejected")) }
            if !result.online { lines.append(style.yellow("offline: changes go out when the network is back")) }
            return lines.joined(separator: "\n")
        }
    }

    /// A progress bar on stderr, fed by `outbox.changed` events on a second connection, until cancelled.
    static func showProgress(_ socketPath: String) async {
        guard let watcher = try? SplashClient.connect(socketPath: socketPath),
              let subscription = try? await watcher.send(SubscribeRequest(types: [EventType.outboxChanged.rawValue]))
        else { return }
        let total = max(subscription.snapshot.outbox.pending + subscription.snapshot.outbox.inFlight, 1)
        let bar = ProgressBar(total: total)
        bar.draw(done: 0)
        await withTaskCancellationHandler {
            while !Task.isCancelled, let event = try? await watcher.nextEvent() {
                if case .outboxChanged(let counts) = event.event {
                    bar.draw(done: total - min(total, counts.pending + counts.inFlight))
                }
            }
        } onCancel: {
            Task { await watcher.close() }
        }
        bar.clear()
    }
}

struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue", abstract: "Changes waiting for the server, and those it refused.",
        subcommands: [QueueList.self, QueueRetry.self, QueueDrop.self], defaultSubcommand: QueueList.self)
}

struct QueueList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List queued changes.")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Only the changes the server refused.") var rejected = false

    func run() async throws {
        try await global.run(QueueListRequest(rejected: rejected ? true : nil)) { result, style in
            if result.ops.isEmpty { return rejected ? "No refused changes." : "Nothing queued." }
            var table = Table(headers: ["OP", "WHAT", "PHOTO", "STATE", "TRIES", "NOTE"].map(style.bold))
            for op in result.ops {
                let note = op.state == "rejected" ? (op.lastError ?? "")
                    : op.nextAttemptAt.map { "next try " + Formatting.relativeFuture($0) } ?? (op.lastError ?? "")
                table.rows.append([String(op.opId.prefix(8)), op.op, op.entityId, op.state, "\(op.attempts)", note])
            }
            return table.render()
        }
    }
}

struct QueueRetry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "retry", abstract: "Send a refused or waiting change again, now.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The op id (from splashctl queue; a unique prefix is enough).") var op: String

    func run() async throws {
        let id = try await QueueOpResolver.resolve(op, global: global)
        try await global.run(QueueRetryRequest(opId: id)) { result, _ in "\(result.opId): \(result.state)" }
    }
}

struct QueueDrop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop", abstract: "Give up on a change for good (the local change stays; the server never gets it).")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Do not ask for confirmation.") var yes = false
    @Argument(help: "The op id (from splashctl queue; a unique prefix is enough).") var op: String

    func run() async throws {
        let id = try await QueueOpResolver.resolve(op, global: global)
        if !yes {
            guard isatty(STDIN_FILENO) == 1 else {
                throw ValidationError("refusing to drop \(id) without confirmation; pass --yes")
            }
            FileHandle.standardError.write(Data("Drop \(id)? The server will never get this change. [y/N] ".utf8))
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                Output.line("kept")
                return
            }
        }
        try await global.run(QueueDropRequest(opId: id)) { result, _ in "\(result.opId): \(result.state)" }
    }
}

/// Lets a person type the short id `splashctl queue` shows.
enum QueueOpResolver {
    static func resolve(_ prefix: String, global: GlobalOptions) async throws -> String {
        var found: [String] = []
        try await global.withClient { client in
            found = try await client.send(QueueListRequest()).ops.map(\.opId).filter { $0.hasPrefix(prefix) }
        }
        guard found.count <= 1 else { throw ValidationError("'\(prefix)' matches \(found.count) ops; give more of the id") }
        return found.first ?? prefix
    }
}
