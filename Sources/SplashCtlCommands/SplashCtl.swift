import ArgumentParser
import CLIText

/// splashctl: a thin client. Each command builds a typed request, sends it with SplashClient and
/// prints the answer; it holds no logic of the daemon's. The commands live in this library so that
/// tests run them in-process (`CommandEnvironment`); the executable only calls `runCommandLine()`.
public struct SplashCtl: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "splashctl",
        abstract: HelpText.splashctlAbstract.text(),
        discussion: HelpText.splashctlDiscussion.text(),
        subcommands: [
            SetupCommand.self, StatusCommand.self, PhotosCommand.self, WatchCommand.self,
            SearchCommand.self, HistoryCommand.self, RandomCommand.self, TopicsCommand.self, TopicCommand.self,
            FollowCommand.self, UnfollowCommand.self, FeedsCommand.self,
            LikeCommand.self, UnlikeCommand.self, DismissCommand.self, SyncCommand.self, PauseCommand.self,
            ResumeCommand.self, QueueCommand.self,
            ImportCommand.self, EditCommand.self, FiltersCommand.self, EditsCommand.self, CacheCommand.self, LibraryCommand.self,
            SignupCommand.self, LoginCommand.self, LogoutCommand.self, WhoamiCommand.self, GuestCommand.self, ProfileCommand.self,
            UsersCommand.self, GoogleCommand.self, OpenCommand.self,
        ])

    /// Global options may come before the command (`splashctl --json status`); ArgumentParser reads
    /// them only after it, so they are moved there before parsing.
    public static func runCommandLine() async {
        await main(GlobalArguments.prepared(Array(CommandLine.arguments.dropFirst())))
    }

    public init() {}
}

enum GlobalArguments {
    static let flags: Set<String> = ["--json", "--no-color"]
    static let options: Set<String> = ["--socket"]

    /// The words as ArgumentParser takes them: global options moved after the command, and a bare
    /// `edit --preview` (no file after it) given its value `-`, "draw it here" (ArgumentParser has no
    /// option whose value may be left out).
    static func prepared(_ arguments: [String]) -> [String] {
        var words = reordered(arguments)
        var index = 0
        while index < words.count, words[index] != "--" {
            if words[index] == "--preview", index + 1 == words.count || (words[index + 1].hasPrefix("-") && words[index + 1] != "-") {
                words.insert("-", at: index + 1)
            }
            index += 1
        }
        return words
    }

    static func reordered(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if flags.contains(argument) {
                leading.append(argument)
                index += 1
            } else if options.contains(argument), index + 1 < arguments.count {
                leading += [argument, arguments[index + 1]]
                index += 2
            } else if options.contains(where: { argument.hasPrefix($0 + "=") }) {
                leading.append(argument)
                index += 1
            } else {
                break
            }
        }
        let rest = Array(arguments[index...])
        if let terminator = rest.firstIndex(of: "--") {
            return Array(rest[..<terminator]) + leading + Array(rest[terminator...])
        }
        return rest + leading
    }
}
