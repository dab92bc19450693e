#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CLIText
import Foundation
import Shared
import SplashClient

/// The first run: where the account lives, its keys, the user units, and signing in. Secrets go to
/// files of their own (mode 0600) that the config names with `*_file` keys, never inline; the config
/// is 0600 too. Asks for what the flags do not give when there is a terminal.
/// What `setup --json` prints.
struct SetupSummary: Encodable {
    var config: String
    var previousConfig: String?
    /// enabled, no_systemd, failed or skipped.
    var units: String
    var signedInAs: String?
}

struct SetupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup",
        abstract: HelpText.setupAbstract.text(),
        discussion: HelpText.setupDiscussion.text())
    @OptionGroup var global: GlobalOptions
    @Option(help: .text(.setupBackendURL)) var backendURL: String?
    @Option(help: .text(.setupAnonKeyFile)) var anonKeyFile: String?
    @Option(help: .text(.setupUnsplashKeyFile)) var unsplashKeyFile: String?
    @Option(help: .text(.setupEmail)) var email: String?
    @Flag(help: .text(.setupSignup)) var signup = false
    @Option(help: .text(.setupUsername)) var username: String?
    @Flag(help: .text(.setupPasswordStdin)) var passwordStdin = false
    @Flag(help: .text(.setupNoEnable)) var noEnable = false
    @Flag(help: .text(.setupNoSignIn)) var noSignIn = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let interactive = isatty(STDIN_FILENO) == 1 && !passwordStdin
        let directory = SetupState.configDirectory(environment: environment)

        let url = try value(backendURL, ask: Message.promptBackendURL.text(), interactive: interactive, flag: "--backend-url")
        guard let parsed = URL(string: url), ["https", "http"].contains(parsed.scheme ?? ""), parsed.host != nil else {
            throw ValidationError(Message.notAnHTTPURL(url).text())
        }
        let anonKey = try secret(file: anonKeyFile, ask: Message.promptAnonKey.text(), interactive: interactive, flag: "--anon-key-file")
        let unsplashKey: String? = if let unsplashKeyFile {
            try Self.readSecretFile(unsplashKeyFile)
        } else if interactive {
            Self.ask(Message.promptUnsplashKey.text()).flatMap { $0.isEmpty ? nil : $0 }
        } else {
            nil
        }

        let written = try SetupState.write(
            directory: directory, backendURL: url, anonKey: anonKey, unsplashKey: unsplashKey)
        var summary = SetupSummary(config: written.config, previousConfig: written.backup, units: "skipped", signedInAs: nil)
        say(Message.wroteConfig(path: written.config).text() + (written.backup.map { "; " + Message.previousConfigIs(path: $0).text() } ?? ""))

        if !noEnable {
            switch UserUnits.enableSocket() {
            case .enabled:
                summary.units = "enabled"
                say(Message.enabledSocket.text())
            case .noSystemd(let reason):
                summary.units = "no_systemd"
                say(Message.noUserManager(reason: reason).text())
            case .failed(let message):
                summary.units = "failed"
                Output.error(Message.couldNotEnableSocket(message).text())
            }
        }

        if !noSignIn, let account = try accountToSignIn(interactive: interactive) {
            try await global.withClient { client in
                _ = try await client.send(StatusRequest())  // the daemon is up (socket activation starts it)
                let password = try PasswordPrompt.read(fromStdin: passwordStdin)
                let result: WhoamiResult = if signup {
                    try await client.send(SignupRequest(email: account, password: password, username: try requireUsername()))
                } else {
                    try await client.send(LoginRequest(email: account, password: password))
                }
                summary.signedInAs = result.account.email ?? account
                say(Message.signedInAs(result.account.username ?? result.account.email ?? account).text())
            }
        }
        try SetupState.markDone(directory: directory)
        if global.json { Output.json(summary) } else { say(Message.setupDone.text()) }
    }

    /// Progress for people; with --json only the summary is printed.
    private func say(_ line: String) {
        if !global.json { Output.line(line) }
    }

    private func accountToSignIn(interactive: Bool) throws -> String? {
        if let email { return email }
        guard interactive else { return nil }
        let answer = Self.ask(Message.promptEmail.text()) ?? ""
        return answer.isEmpty ? nil : answer
    }

    private func requireUsername() throws -> String {
        if let username { return username }
        guard let answer = Self.ask(Message.promptUsername.text()), !answer.isEmpty else { throw ValidationError(Message.signupNeedsUsername.text()) }
        return answer
    }

    private func value(_ given: String?, ask prompt: String, interactive: Bool, flag: String) throws -> String {
        if let given { return given }
        guard interactive, let answer = Self.ask(prompt), !answer.isEmpty else {
            throw ValidationError(Message.giveFlagOrRunOnTerminal(flag: flag).text())
        }
        return answer
    }

    private func secret(file: String?, ask prompt: String, interactive: Bool, flag: String) throws -> String {
        if let file { return try Self.readSecretFile(file) }
        guard interactive, let answer = Self.ask(prompt), !answer.isEmpty else {
            throw ValidationError(Message.giveFlagOrRunOnTerminal(flag: flag).text())
        }
        return answer
    }

    static func readSecretFile(_ path: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw ValidationError(Message.cannotRead(path: path).text()) }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.contains("\n") else { throw ValidationError(Message.keyOnOneLine(path: path).text()) }
        return trimmed
    }

    static func ask(_ prompt: String) -> String? {
        Output.prompt(prompt)
        return readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces)
    }
}
