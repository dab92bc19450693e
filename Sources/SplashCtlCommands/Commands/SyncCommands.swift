#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CLIText
import Foundation
import Shared
import SplashClient

// splashctl's sync and queue commands.

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: HelpText.syncAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Flag(help: .text(.syncWait)) var wait = false
    @Option(help: .text(.syncTimeout)) var timeout: Int?

    func run() async throws {
        let request = SyncNowRequest(wait: wait ? true : nil, timeoutSeconds: timeout)
        let showProgress = wait && !global.json && Output.isTerminal(.error)
        var outcome = SyncResult.Outcome.started
        try await global.run(request, whileWaiting: showProgress ? Self.showProgress : nil, observe: { outcome = $0.outcome }) { result, style in
            var lines: [String] = []
            if wait { lines.append(Message.sentChanges(result.pushed).text()) }
            lines.append(result.drained ? style.green(Message.nothingLeftToSend.text()) : Message.stillQueued(result.pending + result.inFlight).text())
            if result.rejected > 0 { lines.append(style.yellow(Message.refusedByServer(result.rejected).text())) }
            switch result.outcome {
            case .timedOut: lines.append(style.yellow(Message.syncTimedOut(reason: result.reason ?? "").text()))
            case .offline: lines.append(style.yellow(Message.syncOffline(reason: result.reason ?? "").text()))
            case .started, .drained, .rejected:
                if !result.online { lines.append(style.yellow(Message.offlineChangesGoOutLater.text())) }
            }
            return lines.joined(separator: "\n")
        }
        // With --wait, 0 only when everything agrees; otherwise why, as its own status (docs/operations.md).
        switch outcome {
        case .started, .drained: return
        case .rejected: throw ExitCode(SplashExit.syncRejected)
        case .offline: throw ExitCode(SplashExit.syncOffline)
        case .timedOut: throw ExitCode(SplashExit.syncTimedOut)
        }
    }

    /// A progress bar on stderr, fed by `outbox.changed` events on a second connection, until cancelled.
    static func showProgress(_ socketPath: String) async {
        guard let watcher = try? CommandEnvironment.current.connect(socketPath),
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
        commandName: "queue", abstract: HelpText.queueAbstract.text(),
        subcommands: [QueueList.self, QueueRetry.self, QueueDrop.self], defaultSubcommand: QueueList.self)
}

struct QueueList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: HelpText.queueListAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Flag(help: .text(.queueListRejected)) var rejected = false

    func run() async throws {
        try await global.run(QueueListRequest(rejected: rejected ? true : nil)) { result, style in
            if result.ops.isEmpty { return (rejected ? Message.noRefusedChanges : .nothingQueued).text() }
            var table = Table([.op, .what, .photo, .state, .tries, .note], style)
            for op in result.ops {
                let note = if let twin = op.duplicateOf {
                    Message.heldAsDuplicate(of: twin, distance: op.distance ?? 0, opId: String(op.opId.prefix(8)), photo: op.entityId).text()
                } else if op.state == "rejected" {
                    op.lastError ?? ""
                } else {
                    // When it goes next and why it has not gone yet (a server without a migration says which).
                    [op.nextAttemptAt.map { Message.nextTry(Formatting.relativeFuture($0)).text() }, op.lastError]
                        .compactMap { $0 }.joined(separator: ": ")
                }
                table.rows.append([String(op.opId.prefix(8)), op.op, op.entityId, op.state, "\(op.attempts)", note])
            }
            return table.render()
        }
    }
}

struct QueueRetry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "retry", abstract: HelpText.queueRetryAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Argument(help: .text(.opID)) var op: String

    func run() async throws {
        let id = try await QueueOpResolver.resolve(op, global: global)
        try await global.run(QueueRetryRequest(opId: id)) { result, _ in "\(result.opId): \(result.state)" }
    }
}

struct QueueDrop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop", abstract: HelpText.queueDropAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Flag(help: .text(.queueDropYes)) var yes = false
    @Argument(help: .text(.opID)) var op: String

    func run() async throws {
        let id = try await QueueOpResolver.resolve(op, global: global)
        if !yes {
            guard isatty(STDIN_FILENO) == 1 else {
                throw ValidationError(Message.dropNeedsConfirmation(op: id).text())
            }
            Output.prompt(Message.dropConfirm(op: id).text())
            guard let answer = readLine(), ["y", "yes", "s", "sim"].contains(answer.lowercased()) else {
                Output.line(Message.kept.text())
                return
            }
        }
        try await global.run(QueueDropRequest(opId: id)) { result, _ in "\(result.opId): \(result.state)" }
    }
}

/// Lets a person type the short id `splashctl queue` shows.
enum QueueOpResolver {
    static func resolve(_ prefix: String, global: GlobalOptions) async throws -> String {
        var ops: [String] = []
        try await global.withClient { client in ops = try await client.send(QueueListRequest()).ops.map(\.opId) }
        // One that begins no op goes as typed: the daemon's answer names it unknown.
        return try ShortID.resolve(prefix, among: ops) { .prefixMatchesOps(prefix: prefix, count: $0) } ?? prefix
    }
}
