#if canImport(Glibc)
import Clocks
import Glibc
#endif
import Account
import Connectivity
import Control
import Foundation
import HTTP
import Journal
import Library
import Logging
import NIOCore
import NIOPosix
import PhotoSources
import ServiceLifecycle
import Shared
import Store
import Support
import Sync
import Synchronization
import Systemd

/// Sets up logging, the configuration, the directories and the store, builds the daemon's parts
/// (`DaemonGraph`) and runs them as one service group until SIGTERM or SIGINT. The executable only
/// parses flags and calls `run`.
public enum DaemonRunner {
    public struct Options: Sendable {
        public var configFile: String?
        public var directories: DaemonDirectories.Flags
        public var logLevel: Logger.Level?
        public var logTarget: LogTarget
        public init(configFile: String?, directories: DaemonDirectories.Flags, logLevel: Logger.Level?, logTarget: LogTarget) {
            self.configFile = configFile
            self.directories = directories
            self.logLevel = logLevel
            self.logTarget = logTarget
        }
    }

    /// Exit statuses (documented in docs/operations.md).
    public enum Exit {
        public static let ok: Int32 = 0
        public static let failure: Int32 = 1
        public static let cannotCreate: Int32 = 73  // EX_CANTCREAT: a directory
        public static let ioError: Int32 = 74  // EX_IOERR: the store
        public static let config: Int32 = SplashExit.config  // 78: RestartPreventExitStatus
    }

    public static func run(_ options: Options) async -> Int32 {
        FreedMemory.limitArenas()
        umask(0o077)  // every file splashd creates is private unless it says otherwise
        let environment = ProcessInfo.processInfo.environment
        let levelBox = LogLevelBox(options.logLevel ?? .info)
        LoggingSystem.bootstrap { label in options.logTarget.makeHandler(label: label, level: levelBox, environment: environment) }
        let logger = Logger(label: "splashd")
        let notifier = SystemdNotifier()

        let configFile = options.configFile ?? DaemonConfig.defaultFile(environment: environment)
        let config: DaemonConfig
        do {
            config = try DaemonConfig.load(file: configFile, environment: environment)
        } catch {
            logger.critical("configuration error: \(error)", metadata: ["splashd_op": "start"])
            return Exit.config
        }
        levelBox.level = options.logLevel ?? config.logLevel

        let directories: DaemonDirectories
        do {
            directories = try DaemonDirectories.resolve(flags: options.directories, environment: environment)
            try directories.create()
        } catch {
            logger.critical("\(error)", metadata: ["splashd_op": "start"])
            return Exit.cannotCreate
        }

        let store: Store
        do {
            store = try Store(path: directories.databasePath)
        } catch {
            logger.critical("\(error)", metadata: ["splashd_op": "start"])
            return Exit.ioError
        }

        let mark = RunMark(stateDirectory: directories.state)
        let uncleanSince: Date?
        do {
            uncleanSince = try mark.begin(now: Date())
        } catch {
            logger.critical("\(error)", metadata: ["splashd_op": "start"])
            return Exit.ioError
        }

        // splashd.socket's control socket and splashd-web.socket's gallery sockets, by their names.
        let listened = SystemdNotifier.listenedSockets()
        let control = listened.first { $0.name != SystemdNotifier.gallerySocketName }
        let gallery = listened.filter { $0.name == SystemdNotifier.gallerySocketName }.map(\.fd)
        let graph: DaemonGraph
        do {
            graph = try await DaemonGraph.make(
                config: config, directories: directories, store: store,
                socket: control.map { .inherited(fd: $0.fd) } ?? .path(directories.socket), gallerySockets: gallery, notifier: notifier,
                clock: AnyClock(ContinuousClock()), uncleanSince: uncleanSince, logger: logger)
        } catch {
            logger.critical("\(error)", metadata: ["splashd_op": "start"])
            return Exit.ioError
        }
        let state = graph.state, server = graph.server, eventLoops = graph.eventLoops, http = graph.http

        // Trap the signals before anything listens: a SIGTERM or SIGHUP that arrives between READY and
        // the service group's own setup must stop or reload the daemon, not kill it.
        let signals = SignalWatcher()

        let running = Mutex(config)
        let reload = ReloadService(
            signals: signals.reloads,
            notifier: notifier,
            reload: {
                Result {
                    let fresh = try DaemonConfig.load(file: configFile, environment: environment)
                    let changes = running.withLock { current in
                        defer { current = fresh }
                        return current.liveChanges(to: fresh)
                    }
                    levelBox.level = options.logLevel ?? fresh.logLevel
                    DaemonGraph.limitBandwidth(fresh.bandwidth, http: http, state: state)
                    state.bus.publish(.daemonReloaded)
                    return changes
                }
            },
            statusLine: state.statusLine, logger: logger)

        let services = graph.services(reload: reload)
        let group = ServiceGroup(configuration: .init(services: services, logger: logger))

        do {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                // Side tasks: turn SIGTERM/SIGINT into a graceful shutdown, and say READY=1 once the
                // socket listens. The group's own run() is what this waits for; cancelling it early
                // would drop connections the server accepted but has not served yet.
                tasks.addTask {
                    for await _ in signals.terminations { await group.triggerGracefulShutdown() }
                }
                tasks.addTask {
                    try await server.waitUntilListening()
                    notifier.ready(status: state.statusLine())
                    logger.notice("splashd ready", metadata: [
                        "splashd_op": "start", "splashd_version": "\(SplashVersion.current)",
                        "splashd_socket": "\(directories.socket)", "splashd_state_dir": "\(directories.state)",
                    ])
                }
                try await group.run()
                tasks.cancelAll()
            }
        } catch {
            logger.critical("\(error)", metadata: ["splashd_op": "run"])
            try? await eventLoops.shutdownGracefully()
            return Exit.failure
        }
        try? await eventLoops.shutdownGracefully()
        mark.end()
        return Exit.ok
    }
}

extension DaemonConfig {
    /// What a reload changes that takes effect without a restart, in words for the log.
    func liveChanges(to new: DaemonConfig) -> String {
        var changes: [String] = []
        if logLevel != new.logLevel { changes.append("log.level \(logLevel) → \(new.logLevel)") }
        if bandwidth != new.bandwidth { changes.append("network rates \(Self.describe(bandwidth)) → \(Self.describe(new.bandwidth))") }
        var restartOnly = self
        restartOnly.logLevel = new.logLevel
        restartOnly.bandwidth = new.bandwidth
        if restartOnly != new { changes.append("other settings apply at the next start") }
        return changes.isEmpty ? "nothing changed" : changes.joined(separator: "; ")
    }

    private static func describe(_ rates: BandwidthLimits.Rates) -> String {
        func rate(_ bytes: Int64?) -> String { bytes.map { "\($0) B/s" } ?? "unlimited" }
        return "download \(rate(rates.download)), upload \(rate(rates.upload))"
    }
}
