#if canImport(Glibc)
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
import Sync
import Synchronization
import Systemd

/// Builds the daemon's parts and runs them as one service group until SIGTERM or SIGINT.
/// The executable only parses flags and calls `run`.
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

        let state = DaemonState(bus: EventBus(), directories: directories.asProtocol)
        let library = PhotoLibrary(store: store)
        do {
            let counts = try library.counts(accountId: "")
            state.setLibrary(counts.library)
            state.setOutbox(counts.outbox)
        } catch {
            logger.critical("cannot read the store: \(error)", metadata: ["splashd_op": "start"])
            return Exit.ioError
        }

        let counter = LibraryCounter(state: state, library: library, logger: logger)
        counter.observeStore()

        let account = await AccountCapability.start(
            config: config, store: store, state: state, counter: counter, stateDirectory: directories.state, logger: logger)
        let network = await NetworkCapability.make(config: config, state: state, account: account, logger: logger)
        let sync = SyncCapability.make(
            config: config, store: store, state: state, account: account, network: network.gate,
            dataDirectory: directories.data, logger: logger)
        let images = ImageCapability.make(
            config: config, store: store, state: state, directories: directories, network: network.gate,
            health: network.health, push: sync.engine, logger: logger)
        let pictures = PictureCapability(config: config)
        let edits = EditCapability.make(
            config: config, store: store, directories: directories, images: images, network: network.gate,
            announce: sync.announce, pictures: pictures, logger: logger)
        let imports = ImportCapability.make(
            config: config, store: store, state: state, renditions: images?.renditions, announce: sync.announce, logger: logger)
        let google = GoogleCapability.make(
            config: config, store: store, directories: directories, importer: imports.importer, state: state,
            renditions: images?.renditions, logger: logger)
        let guests = GuestCapability(adoption: GuestAdoption(store: store, announce: sync.announce), logger: logger)
        let sources = SourceCapability.make(
            config: config, store: store, state: state, images: images, health: network.health, logger: logger)
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let realtime = RealtimeCapability.make(
            config: config, state: state, account: account, sync: sync, network: network.gate, group: eventLoops, logger: logger)
        Self.followStatusLine(state: state, notifier: notifier)
        // The library as a folder of links where picture viewers look (pictures.folder).
        let picturesFolder = config.picturesFolder.map { folder in
            PicturesFolderService(
                folder: PicturesFolder(store: store, folder: folder, dataDirectory: directories.data), enabled: config.picturesExport,
                accountId: { state.actingAccount },
                downloadPatience: images.map { _ in .seconds(2) }, logger: logger)
        }
        picturesFolder?.follow(state.bus, library: state.current.library)

        var serverConfiguration = ControlServer.Configuration(
            socket: SystemdNotifier.listenedSocket().map { .inherited(fd: $0) } ?? .path(directories.socket))
        serverConfiguration.maximumLineBytes = config.maximumLineBytes
        serverConfiguration.maximumConnections = config.maximumConnections
        serverConfiguration.eventQueueCapacity = config.eventQueueCapacity
        serverConfiguration.idleTimeout = .seconds(Int64(config.idleTimeoutSeconds))
        let server = ControlServer(
            configuration: serverConfiguration, router: Routes.make(
                state: state, library: library, logger: logger, account: account, sync: sync, search: sources.search,
                feeds: sources.feeds, images: images, edits: edits, imports: imports, guests: guests,
                pictures: pictures, picturesFolder: picturesFolder,
                google: google),
            logger: logger, group: eventLoops)

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
                    state.bus.publish(.daemonReloaded)
                    return changes
                }
            },
            statusLine: state.statusLine, logger: logger)

        // Services stop in reverse order: the announcer first, the control socket after the reload
        // handler, the watchdog last so that it keeps pinging while the others drain.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let interval = SystemdNotifier.watchdogInterval() {
            services.append(.init(service: WatchdogService(
                interval: interval, store: store, eventLoop: eventLoops.next(), notifier: notifier, logger: logger)))
        }
        services.append(.init(service: server))
        services.append(.init(service: reload))
        services.append(.init(service: account.refreshService))
        if let clockKeeper = Self.clockKeeper(account: account, store: store, state: state, network: network.gate, logger: logger) {
            services.append(.init(service: clockKeeper))
        }
        if let monitor = network.monitor { services.append(.init(service: monitor)) }
        if let engine = sync.engine { services.append(.init(service: engine)) }
        if let pull = sync.pull { services.append(.init(service: pull)) }
        if let realtime {
            services.append(.init(service: realtime.users))
            services.append(.init(service: realtime.service))
        }
        if let feeds = sources.feeds { services.append(.init(service: feeds)) }
        if let refresher = sources.refresher { services.append(.init(service: refresher)) }
        services.append(.init(service: imports.watcher))
        if let images {
            // The scanner stops after the queue (reverse order): no arrival is left unscanned by a stop
            // before the transfers' end.
            services.append(.init(service: images.scanner))
            services.append(.init(service: images.renditions))
            services.append(.init(service: images.queue))
        }
        if let picturesFolder { services.append(.init(service: picturesFolder)) }
        // Google Photos imports go on where a stop or a crash left them.
        if let picks = google.picks { services.append(.init(service: picks)) }
        // An adoption of the guest's likes and edits that a crash cut short goes on, beside the rest.
        services.append(.init(
            service: GuestAdoptionResumer(guests: guests, accountId: state.current.account.userId), successTerminationBehavior: .ignore))
        // Registered last, so it is the first to hear of a graceful shutdown.
        services.append(.init(
            service: ShutdownAnnouncer(notifier: notifier, state: state, logger: logger),
            successTerminationBehavior: .gracefullyShutdownGroup))
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
        return Exit.ok
    }
}

extension DaemonRunner {
    /// systemd's STATUS= line follows connectivity, the account and the queue as they change.
    static func followStatusLine(state: DaemonState, notifier: SystemdNotifier) {
        let statusLine = Mutex("")
        _ = state.bus.subscribe(types: [.accountChanged, .connectivityChanged, .outboxChanged], snapshot: {}) { _ in
            let line = state.statusLine()
            let changed = statusLine.withLock { last in defer { last = line }; return last != line }
            if changed { notifier.status(line) }
        }
    }
}

extension DaemonConfig {
    /// What a reload changes that takes effect without a restart, in words for the log.
    func liveChanges(to new: DaemonConfig) -> String {
        var changes: [String] = []
        if logLevel != new.logLevel { changes.append("log.level \(logLevel) → \(new.logLevel)") }
        var restartOnly = self
        restartOnly.logLevel = new.logLevel
        if restartOnly != new { changes.append("other settings apply at the next start") }
        return changes.isEmpty ? "nothing changed" : changes.joined(separator: "; ")
    }
}
