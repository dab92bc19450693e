import ArgumentParser
import Daemon
import Foundation
import Journal
import Logging
import Shared

/// splashd: parses the command line and hands over to the daemon. Nothing else lives here.
@main
struct Splashd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "splashd",
        abstract: "Keeps your photo library in sync with your account, online and offline.",
        discussion: "Runs in the foreground (no forking, no pid file); systemd or a terminal supervises it. "
            + "SIGTERM or SIGINT stop it gracefully; SIGHUP reloads the configuration.",
        version: SplashVersion.current)

    @Option(help: "Configuration file (default: $XDG_CONFIG_HOME/splashd/config.toml when it exists).")
    var config: String?
    @Option(help: "Control socket path (default: $SPLASHD_SOCKET, else <runtime dir>/control.sock).")
    var socket: String?
    @Option(help: "State directory: the database and session.")
    var stateDir: String?
    @Option(help: "Data directory: the library (liked and edited photos).")
    var dataDir: String?
    @Option(help: "Cache directory: thumbnails and other evictable files.")
    var cacheDir: String?
    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String?
    @Option(help: "journal, stderr or auto (journal when stderr is the journal's stream).")
    var logTarget: String = "auto"
    @Flag(help: "Check the configuration, print what is wrong with file and line, and exit.")
    var checkConfig = false

    func validate() throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        if LogTarget(rawValue: logTarget) == nil {
            throw ValidationError("--log-target must be journal, stderr or auto")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        if checkConfig {
            let file = config ?? DaemonConfig.defaultFile(environment: environment)
            do {
                _ = try DaemonConfig.load(file: file, environment: environment)
                print(file.map { "\($0): ok" } ?? "no configuration file; defaults and environment: ok")
            } catch {
                FileHandle.standardError.write(Data("splashd: \(error)\n".utf8))
                throw ArgumentParser.ExitCode(SplashExit.config)
            }
            return
        }
        let status = await DaemonRunner.run(.init(
            configFile: config,
            directories: .init(stateDir: stateDir, dataDir: dataDir, cacheDir: cacheDir, socket: socket),
            logLevel: logLevel.flatMap(Logger.Level.init(rawValue:)),
            logTarget: LogTarget(rawValue: logTarget) ?? .auto))
        if status != 0 { throw ArgumentParser.ExitCode(status) }
    }
}

