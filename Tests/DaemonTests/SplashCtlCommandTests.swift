import ArgumentParser
import CLIText
import Control
@testable import Daemon
import DaemonTestSupport
import Foundation
import Shared
import SplashClient
@testable import SplashCtlCommands
import Synchronization
import Testing
import TestSupport

/// splashctl's commands below the process: parsed from the words a person types, run against the
/// daemon's real router over a real Store in this process, what they print captured.
@Suite struct SplashCtlCommandTests {
    let daemon: InProcessDaemon

    init() async throws {
        daemon = try await InProcessDaemon(photos: ["abc", "def"])
    }

    @Test func aSyncWhileSignedOutSaysWhyAndExitsWithItsKindsCode() async throws {
        let run = try await splashctl("sync")
        #expect(run.code == ErrorKind.notSignedIn.exitCode)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("splashctl: sign in to sync"), "\(run.stderr)")
    }

    /// Signed out, a like is the guest's: made, not queued, and said so.
    @Test func aLikeWhileSignedOutIsTheGuestsAndSaysSo() async throws {
        let run = try await splashctl("like", "unsplash:abc")
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stdout == "unsplash:abc: \(Message.liked.text()) — \(Message.keptAsGuest.text())\n")
        let guest = try await splashctl("guest")
        #expect(guest.stdout == Message.guestCounts(likes: 1, edits: 0).text() + "\n")
    }

    @Test func likeAndUnlikeSayWhatChangedAndWhatWaitsForTheServer() async throws {
        daemon.signIn()
        let liked = try await splashctl("like", "unsplash:abc")
        #expect(liked.code == 0)
        #expect(liked.stdout == "unsplash:abc: \(Message.liked.text()) — \(Message.queuedForServer.text())\n")
        let again = try await splashctl("--no-color", "like", "unsplash:abc")
        #expect(again.stdout.contains(Message.noChange.text()), "a second like changes nothing: \(again.stdout)")
        let unliked = try await splashctl("unlike", "unsplash:abc")
        #expect(unliked.stdout.hasPrefix("unsplash:abc: \(Message.notLiked.text())"))
    }

    @Test func jsonPrintsTheDaemonsResultAndGlobalOptionsMayComeFirst() async throws {
        daemon.signIn()
        let run = try await splashctl("--json", "like", "unsplash:abc")
        #expect(run.code == 0)
        let result = try JSONCoding.decoder().decode(PhotoActionResult.self, from: Data(run.stdout.utf8))
        #expect(result.id == "unsplash:abc" && result.liked && result.queued)
        let status = try await splashctl("--json", "status")
        let decoded = try JSONCoding.decoder().decode(DaemonStatus.self, from: Data(status.stdout.utf8))
        #expect(decoded.account.userId == "u1")
    }

    @Test func anUnknownPhotoIsNotFoundAndTheErrorIsJSONOnStderrUnderJSON() async throws {
        daemon.signIn()
        let run = try await splashctl("--json", "like", "unsplash:nope")
        #expect(run.code == ErrorKind.notFound.exitCode)
        #expect(run.stdout.isEmpty)
        let error = try JSONCoding.decoder().decode(RPCError.self, from: Data(run.stderr.utf8))
        #expect(error.kind == .notFound)
    }

    @Test func badWordsAreUsageErrorsBeforeAnythingIsSent() async throws {
        let run = try await splashctl("like")
        #expect(run.code == ExitCode.validationFailure.rawValue)
        #expect(run.stderr.contains("Missing expected argument"), "\(run.stderr)")
    }

    /// A queued op or an edit is named by the start of its id, as `splashctl queue` shows it: the one
    /// id it begins, or a usage error saying it begins several or none.
    @Test func aShortIdNamesTheOneItBeginsAndNoneOrSeveralAreUsageErrors() async throws {
        daemon.signIn()
        _ = try await splashctl("like", "unsplash:abc")
        _ = try await splashctl("like", "unsplash:def")
        let listed = try await splashctl("--json", "queue")
        let ops = try JSONCoding.decoder().decode(QueueListResult.self, from: Data(listed.stdout.utf8)).ops.map(\.opId)
        try #require(ops.count == 2)
        let short = (1...36).lazy.map { String(ops[0].prefix($0)) }.first { !ops[1].hasPrefix($0) }!

        let retried = try await splashctl("queue", "retry", short)
        #expect(retried.code == 0, "\(retried.stderr)")
        #expect(retried.stdout.hasPrefix(ops[0] + ": "), "\(retried.stdout)")
        let both = try await splashctl("queue", "retry", "")
        #expect(both.code == ExitCode.validationFailure.rawValue)
        #expect(both.stderr.contains(Message.prefixMatchesOps(prefix: "", count: 2).text()), "\(both.stderr)")
        let noEdit = try await splashctl("edits", "rm", "zz")
        #expect(noEdit.code == ExitCode.validationFailure.rawValue)
        #expect(noEdit.stderr.contains(Message.noEditStartsWith("zz").text()), "\(noEdit.stderr)")
    }

    /// Runs `splashctl <words>` in this process; its exit code and what it printed.
    func splashctl(_ words: String...) async throws -> (code: Int32, stdout: String, stderr: String) {
        let output = CapturedOutput()
        let code = try await InProcessConnection.with(router: daemon.router) { connection in
            let environment = CommandEnvironment(connect: { _ in SplashClient(connection: connection) }, output: output)
            return await CommandEnvironment.$current.withValue(environment) {
                do {
                    var command = try SplashCtl.parseAsRoot(GlobalArguments.prepared(words))
                    if var asynchronous = command as? any AsyncParsableCommand {
                        try await asynchronous.run()
                    } else {
                        try command.run()
                    }
                    return Int32(0)
                } catch {
                    let message = SplashCtl.message(for: error)
                    if !message.isEmpty { output.write(Data((message + "\n").utf8), to: .error) }
                    return SplashCtl.exitCode(for: error).rawValue
                }
            }
        }
        return (code, output.text(.output), output.text(.error))
    }
}

/// What a command would have printed, by stream.
final class CapturedOutput: CommandOutput {
    private let streams = Mutex<[StandardStream: Data]>([:])

    func write(_ data: Data, to stream: StandardStream) {
        streams.withLock { $0[stream, default: Data()].append(data) }
    }

    func isTerminal(_ stream: StandardStream) -> Bool { false }

    func text(_ stream: StandardStream) -> String {
        streams.withLock { String(decoding: $0[stream] ?? Data(), as: UTF8.self) }
    }

    /// `status` suggests setup to someone who has not run it and is not signed in, and to no one else.
    @Test func statusSuggestsSetupOnlyToSomeoneNotInYet() {
        #expect(StatusCommand.suggestsSetup(account: .signedOut, setupDone: false))
        #expect(!StatusCommand.suggestsSetup(account: .signedOut, setupDone: true))
        #expect(!StatusCommand.suggestsSetup(account: .signedIn, setupDone: false), "signed in by a daemon configured by hand")
        #expect(!StatusCommand.suggestsSetup(account: .signedInOffline, setupDone: false))
    }
}
