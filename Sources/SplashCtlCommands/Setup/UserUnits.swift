#if canImport(Glibc)
import Glibc
#endif
import CLIText
import Foundation

/// `systemctl --user` for setup: enable the socket (splashd starts on first use), and restart a
/// running service so it reads the new config.
enum UserUnits {
    enum Outcome {
        case enabled
        case noSystemd(String)
        case failed(String)
    }

    static func enableSocket() -> Outcome {
        let candidates: [String] = ["/usr/bin/systemctl", "/bin/systemctl"]
        guard let systemctl = candidates.first(where: { access($0, X_OK) == 0 }) else {
            return .noSystemd(Message.noSystemctl.text())
        }
        guard run(systemctl, ["--user", "show-environment"]).status == 0 else {
            return .noSystemd(Message.noUserManagerForSession.text())
        }
        _ = run(systemctl, ["--user", "daemon-reload"])
        let enabled = run(systemctl, ["--user", "enable", "--now", "splashd.socket"])
        guard enabled.status == 0 else { return .failed(enabled.output) }
        if run(systemctl, ["--user", "is-active", "--quiet", "splashd.service"]).status == 0 {
            _ = run(systemctl, ["--user", "restart", "splashd.service"])
        }
        return .enabled
    }

    /// Runs a program to completion; its status and combined output.
    static func run(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("splashctl-\(getpid())-\(UUID().uuidString.prefix(6))").path
        defer { unlink(output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return (127, Message.cannotStart(program: executable).text()) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
