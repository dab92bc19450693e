import ArgumentParser
import CLIText
import Foundation
import Shared
import SplashClient

// splashctl's account commands: signup, login, logout, whoami, profile, users.

struct SignupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signup", abstract: HelpText.signupAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Option(help: .text(.emailAddress)) var email: String
    @Option(help: .text(.signupUsername)) var username: String
    @Flag(help: .text(.passwordFromFirstLineOfStdin)) var passwordStdin = false
    @Flag(inversion: .prefixedNo, help: .text(.adoptGuestFlag))
    var adoptGuest: Bool?

    func run() async throws {
        // Checked before asking for a password, so a typo costs nothing.
        if let problem = AccountRules.emailProblem(email) { throw ValidationError(problem.text()) }
        if let problem = AccountRules.usernameProblem(username) { throw ValidationError(problem.text()) }
        let adopt = try await GuestChoice.decide(adoptGuest, passwordStdin: passwordStdin, global: global)
        let password = try PasswordPrompt.read(fromStdin: passwordStdin)
        let wanted = username
        try await global.run(SignupRequest(email: email, password: password, username: username, adoptGuest: adopt)) { result, style in
            var text = WhoamiCommand.render(result, style) + GuestChoice.outcome(result, style)
            // The server makes a taken name unique with a suffix rather than refuse the sign-up.
            if let given = result.account.username, given != wanted {
                text += "\n" + style.yellow(Message.usernameTaken(wanted: wanted, given: given).text())
                    + " " + Message.changeUsernameHint.text()
            }
            return text
        }
    }
}

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: HelpText.loginAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Option(help: .text(.emailAddress)) var email: String?
    @Option(help: .text(.signInProvider)) var provider: SignInProvider?
    @Flag(help: .text(.noBrowserFlag)) var noBrowser = false
    @Flag(help: .text(.passwordFromFirstLineOfStdin)) var passwordStdin = false
    @Flag(inversion: .prefixedNo, help: .text(.adoptGuestFlag))
    var adoptGuest: Bool?

    func validate() throws {
        guard (email == nil) != (provider == nil) else { throw ValidationError(Message.emailOrProvider.text()) }
    }

    func run() async throws {
        if let provider { return try await signIn(with: provider) }
        guard let email else { return }
        if let problem = AccountRules.emailProblem(email) { throw ValidationError(problem.text()) }
        let adopt = try await GuestChoice.decide(adoptGuest, passwordStdin: passwordStdin, global: global)
        let password = try PasswordPrompt.read(fromStdin: passwordStdin)
        try await global.run(LoginRequest(email: email, password: password, adoptGuest: adopt)) { result, style in
            WhoamiCommand.render(result, style) + GuestChoice.outcome(result, style)
        }
    }

    /// The browser sign-in: the daemon listens, the browser goes to the account server and comes back
    /// (or, with --no-browser, the person pastes where it ended); asked again each minute until then.
    private func signIn(with provider: SignInProvider) async throws {
        let adopt = try await GuestChoice.decide(adoptGuest, passwordStdin: false, global: global)
        try await global.withClient { client in
            let start = try await client.send(ProviderLoginRequest(provider: provider))
            let pasted = Browser.send(to: start.url, noBrowser: noBrowser)
            var result = try await client.send(ProviderFinishRequest(flow: start.flow, callbackUrl: pasted, adoptGuest: adopt))
            while !result.signedIn {
                result = try await client.send(ProviderFinishRequest(flow: start.flow, adoptGuest: adopt))
            }
            if global.json {
                Output.json(result)
            } else if let account = result.account {
                Output.line(WhoamiCommand.render(account, global.style) + GuestChoice.outcome(account, global.style))
            }
        }
    }
}

extension SignInProvider: ExpressibleByArgument {}

/// Whether a sign-in brings the guest's likes and edits (made here signed out) into the account.
enum GuestChoice {
    /// The flag when given; else, when the guest has any and a person is at the terminal, their
    /// answer; else nil: they stay the guest's, and the answer says how to bring them in later.
    static func decide(_ flag: Bool?, passwordStdin: Bool, global: GlobalOptions) async throws -> Bool? {
        if let flag { return flag }
        guard !passwordStdin, !global.json, isatty(STDIN_FILENO) == 1 else { return nil }
        var counts = GuestCounts(likes: 0, edits: 0)
        try await global.withClient { client in counts = try await client.send(GuestStatusRequest()) }
        guard !counts.isEmpty else { return nil }
        Output.prompt(Message.adoptGuestQuestion(likes: counts.likes, edits: counts.edits).text())
        guard let answer = readLine() else { return nil }
        return ["y", "yes", "s", "sim"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// The lines after a sign-in about the guest's likes and edits: brought in, or left on this machine.
    static func outcome(_ result: WhoamiResult, _ style: TerminalStyle) -> String {
        var text = ""
        if let adopted = result.adopted, !adopted.isEmpty {
            text += "\n" + style.green(Message.guestAdopted(likes: adopted.likes, edits: adopted.edits).text())
        }
        if let left = result.guest {
            text += "\n" + style.yellow(Message.guestKept(likes: left.likes, edits: left.edits).text())
        }
        return text
    }
}

struct GuestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guest", abstract: HelpText.guestAbstract.text(),
        subcommands: [GuestStatusCommand.self, GuestAdoptCommand.self], defaultSubcommand: GuestStatusCommand.self)
}

struct GuestStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: HelpText.guestStatusAbstract.text())
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run(GuestStatusRequest()) { counts, _ in Message.guestCounts(likes: counts.likes, edits: counts.edits).text() }
    }
}

struct GuestAdoptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adopt", abstract: HelpText.guestAdoptAbstract.text())
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run(GuestAdoptRequest()) { result, style in
            style.green(Message.guestAdopted(likes: result.adopted.likes, edits: result.adopted.edits).text())
        }
    }
}

struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: HelpText.logoutAbstract.text())
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run(LogoutRequest()) { result, style in
            var text = style.yellow(Message.signedOut.text())
            if result.keptOutbox > 0 { text += " — " + Message.queuedChangesKept(result.keptOutbox).text() }
            if !result.serverNotified { text += " " + style.dim(Message.serverNotToldOfLogout.text()) }
            return text
        }
    }
}

struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: HelpText.whoamiAbstract.text())
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run(WhoamiRequest()) { result, style in Self.render(result, style) }
    }

    static func render(_ result: WhoamiResult, _ style: TerminalStyle, width: Int? = TerminalGraphics.windowSize()?.columns) -> String {
        let account = result.account
        let name = account.username ?? account.email ?? "?"
        switch account.state {
        case .signedOut:
            // The reason is the daemon's words.
            return style.yellow(Message.signedOut.text()) + (result.signedOutReason.map { " — \($0)" } ?? "")
        case .signedIn, .signedInOffline:
            let state = account.state == .signedIn ? style.green(Message.signedIn.text()) : style.yellow(Message.signedInOffline.text())
            var rows: [(Label, String)] = [(.email, account.email ?? "?"), (.userID, account.userId ?? "?")]
            if let profile = result.profile { rows.append((.profile, ProfileCommand.syncText(profile, style))) }
            if let expires = result.sessionExpiresAt {
                rows.append((.session, Message.sessionRefreshedBefore(Formatting.absolute(expires)).text()))
            }
            return [state + " " + Message.asName(style.bold(name)).text(), Table.labelled(rows, width: width)].joined(separator: "\n")
        }
    }
}

struct ProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile", abstract: HelpText.profileAbstract.text(),
        subcommands: [ShowProfile.self, SetUsername.self], defaultSubcommand: ShowProfile.self)

    static func syncText(_ profile: Profile, _ style: TerminalStyle) -> String {
        switch profile.sync {
        case .synced: style.green(Message.profileInSync.text())
        case .pending: style.yellow(Message.profileWaitingToBeSent.text())
        case .rejected: style.red(Message.profileRefusedByServer.text()) + (profile.rejectedReason.map { ": \($0)" } ?? "")
        }
    }

    static func render(
        _ profile: Profile, stale: Bool, fetchedAt: Date?, _ style: TerminalStyle, width: Int? = TerminalGraphics.windowSize()?.columns
    ) -> String {
        var rows: [(Label, String)] = [(.email, profile.email)]
        if let created = profile.createdAt { rows.append((.memberSince, Formatting.absolute(created))) }
        if let lastSignIn = profile.lastSignInAt { rows.append((.lastSignIn, Formatting.absolute(lastSignIn))) }
        if let fetchedAt {
            rows.append((.fetched, Formatting.relative(fetchedAt) + (stale ? " " + style.yellow("(\(Message.mayBeOutOfDate.text()))") : "")))
        }
        var lines = [style.bold(profile.username ?? Message.noUsername.text()) + "  " + syncText(profile, style), Table.labelled(rows, width: width)]
        if fetchedAt == nil && stale { lines.append(style.yellow("  " + Message.mayBeOutOfDate.text())) }
        return lines.joined(separator: "\n")
    }
}

struct ShowProfile: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: HelpText.profileShowAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Flag(help: .text(.profileShowRefresh)) var refresh = false

    func run() async throws {
        try await global.run(ProfileGetRequest(refresh: refresh ? true : nil)) { result, style in
            ProfileCommand.render(result.profile, stale: result.stale, fetchedAt: result.fetchedAt, style)
        }
    }
}

struct SetUsername: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-username", abstract: HelpText.setUsernameAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Argument(help: .text(.setUsernameName)) var username: String
    @Flag(help: .text(.setUsernameWait)) var wait = false

    /// What the server made of the change, with `--wait`.
    struct Verdict: Codable {
        enum State: String, Codable { case updated, unchanged, rejected, queued }
        var username: String
        var state: State
        var reason: String?
    }

    func run() async throws {
        if let problem = AccountRules.usernameProblem(username) { throw ValidationError(problem.text()) }
        guard wait else {
            try await global.run(SetUsernameRequest(username: username)) { result, style in
                guard result.opId != nil else { return Message.usernameAlready(style.bold(username)).text() }
                return Message.usernameSetTo(style.bold(username)).text() + " — " + ProfileCommand.syncText(result.profile, style)
            }
            return
        }
        var verdict = Verdict(username: username, state: .unchanged)
        try await global.withClient { client in
            guard let opId = try await client.send(SetUsernameRequest(username: username)).opId else { return }
            _ = try await client.send(SyncNowRequest(wait: true, timeoutSeconds: 30))
            let op = try await client.send(QueueListRequest()).ops.first { $0.opId == opId }
            verdict.state = switch op?.state {
            case nil: .updated
            case "rejected": .rejected
            default: .queued
            }
            verdict.reason = op?.lastError
        }
        try Self.report(verdict, json: global.json, style: global.style)
    }

    /// Prints the verdict; a refused name or one still queued exits with its kind's code.
    static func report(_ verdict: Verdict, json: Bool, style: TerminalStyle) throws {
        if json { Output.json(verdict) }
        let name = style.bold(verdict.username)
        switch verdict.state {
        case .updated:
            if !json { Output.line(style.green(Message.usernameUpdated(name).text())) }
        case .unchanged:
            if !json { Output.line(Message.usernameAlready(name).text()) }
        case .rejected:
            if !json { Output.error(Message.usernameRefused(name: name, reason: verdict.reason ?? "?").text()) }
            throw ExitCode(ErrorKind.rejected.exitCode)
        case .queued:
            if !json { Output.error(Message.usernameStillQueued(name: name, reason: verdict.reason).text()) }
            throw ExitCode(ErrorKind.offline.exitCode)
        }
    }
}

struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: HelpText.usersAbstract.text(), subcommands: [CountUsers.self, RecentUsers.self])

    static func staleNote(stale: Bool, age: Double, _ style: TerminalStyle) -> String {
        stale ? " " + style.yellow(Message.offlineAsOf(Formatting.duration(age)).text()) : ""
    }
}

struct CountUsers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "count", abstract: HelpText.usersCountAbstract.text())
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run(UsersCountRequest()) { result, style in
            Message.accountCount(result.count).text() + UsersCommand.staleNote(stale: result.stale, age: result.ageSeconds, style)
        }
    }
}

struct RecentUsers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "recent", abstract: HelpText.usersRecentAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Option(help: .text(.usersRecentLimit(max: UsersRecentRequest.maxLimit, default: UsersRecentRequest.defaultLimit))) var limit: Int?

    func run() async throws {
        let request = UsersRecentRequest(limit: limit)
        do {
            try request.validate()
        } catch {
            throw ValidationError(error.text())
        }
        try await global.run(request) { result, style in
            var table = Table(headers: [Column.username, .joined].map { $0.text() })
            table.rows = result.users.map { [$0.username, Formatting.relative($0.createdAt)] }
            return table.render() + UsersCommand.staleNote(stale: result.stale, age: result.ageSeconds, style)
        }
    }
}
