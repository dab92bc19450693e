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

        // Account (issue 5): the saved session is restored before READY, without the network.
        let account = AccountRoutes.makeCapability(
            config: config, store: store, state: state, library: library, stateDirectory: directories.state, logger: logger)
        await account.start()
        // The counts taken above knew no account; liked and queued counts are per account.
        LibraryRoutes.refreshCounts(state: state, library: library, logger: logger)

        // Connectivity (issue 6): netlink changes and failed requests trigger a probe of the backend;
        // the state shows in status, events and the STATUS line, and gates the push engine.
        let connectivity = Self.makeConnectivityMonitor(config: config, state: state, logger: logger)
        let network = NetworkGate(
            isOnline: { connectivity.map { ![.offline, .degraded].contains($0.current.state) } ?? true },
            reportFailure: { connectivity?.reportNetworkFailure($0) },
            probeNow: { connectivity?.probeNow() })
        // Only the monitor's verdict makes the account offline; the account's own failures ask it to probe.
        if connectivity != nil { await account.manager.setOnNetworkFailure { network.reportFailure($0) } }

        // Sync (issue 6): likes and unlikes go out through the push engine, which wakes on new ops,
        // sign-ins and connectivity changes, and otherwise sleeps.
        let gate = SyncGate()  // push batches and pull pages take turns
        let pushEngine = account.backend.map { backend in
            PushEngine(
                store: store, session: account.manager, backend: backend, dataDirectory: directories.data, network: network,
                gate: gate, logger: logger, alsoPush: { await account.profiles.push() },
                outboxChanged: { LibraryRoutes.refreshCounts(state: state, library: library, logger: logger) })
        }
        // Pull (issue 7): the server's likes, edits and the profile come down on sign-in, reconnect, sync.now and a schedule.
        let pullEngine = account.backend.map { backend in
            PullEngine(
                store: store, session: account.manager, backend: backend, dataDirectory: directories.data, network: network,
                interval: .seconds(config.pullIntervalSeconds), gate: gate, logger: logger,
                synced: {
                    state.markSynced()
                    notifier.status(state.statusLine())
                },
                alsoPull: { userId in try? await account.profiles.pull(userId: userId) }
            ) { changes in
                LibraryRoutes.refreshCounts(state: state, library: library, logger: logger)
                for change in changes { state.bus.publish(.photoChanged(change)) }
            }
        }
        _ = state.bus.subscribe(types: [.accountChanged, .connectivityChanged], snapshot: {}) { notification in
            if case .connectivityChanged(let status) = notification.event, status.state != .unknown {
                // The backend answers again: what is queued goes at once, not when its backoff ends,
                // and the account says what connectivity says (never "offline" beside "online").
                // Off the bus's lock: both publish events of their own.
                let answers = status.state == .online
                let userId = state.current.account.userId
                Task {
                    await account.manager.backendReachabilityChanged(answers)
                    if answers, let userId { pushEngine?.sendNow(accountId: userId) }
                }
            }
            pushEngine?.ring()
            pullEngine?.ring()
        }
        // systemd's STATUS= line follows connectivity, the account and the queue as they change.
        let statusLine = Mutex("")
        _ = state.bus.subscribe(types: [.accountChanged, .connectivityChanged, .outboxChanged], snapshot: {}) { _ in
            let line = state.statusLine()
            let changed = statusLine.withLock { last in defer { last = line }; return last != line }
            if changed { notifier.status(line) }
        }
        let sync = SyncCapability(
            likes: LikeActions(store: store), engine: pushEngine, pull: pullEngine, network: network,
            service: pushEngine.map { SyncService(store: store, push: $0, pull: pullEngine, network: network) })
        // Images (issue 7): liked photos' files come down into the library; the queue wakes when a like
        // changes (here or pulled), at sign-in and when the network returns, and otherwise sleeps.
        let images = ImageRoutes.makeCapability(
            config: config, store: store, state: state, directories: directories, network: network, logger: logger)
        _ = state.bus.subscribe(types: [.photoChanged, .accountChanged, .connectivityChanged], snapshot: {}) { _ in images?.queue.ring() }

        // Editing (issue 9): libvips renders beside the original; the outbox uploads to Storage.
        let edits = EditRoutes.makeCapability(config: config, store: store, directories: directories, images: images, network: network)
        // Local folders (issue 8): imported with perceptual hashes, near-duplicates skipped.
        let imports = ImportRoutes.makeCapability(config: config, store: store)

        // Sources (issue 8): searches, topics and followed feeds, kept in the store.
        let search = Self.makeSearchService(config: config, store: store, logger: logger)
        let feeds = search.map { FeedService(search: $0, logger: logger, thumbnailsWanted: { images?.queue.wantThumbnails($0) }) }

        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var serverConfiguration = ControlServer.Configuration(
            socket: SystemdNotifier.listenedSocket().map { .inherited(fd: $0) } ?? .path(directories.socket))
        serverConfiguration.maximumLineBytes = config.maximumLineBytes
        serverConfiguration.maximumConnections = config.maximumConnections
        serverConfiguration.eventQueueCapacity = config.eventQueueCapacity
        serverConfiguration.idleTimeout = .seconds(Int64(config.idleTimeoutSeconds))
        let server = ControlServer(
            configuration: serverConfiguration, router: Routes.make(
                state: state, library: library, logger: logger, account: account, sync: sync, search: search, feeds: feeds,
                images: images, edits: edits, imports: imports),
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
        if let connectivity { services.append(.init(service: connectivity)) }
        if let pushEngine { services.append(.init(service: pushEngine)) }
        if let pullEngine { services.append(.init(service: pullEngine)) }
        if let feeds { services.append(.init(service: feeds)) }
        if let images { services.append(.init(service: images.queue)) }
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
    static func makeSearchService(config: DaemonConfig, store: Store, logger: Logger) -> SearchService? {
        guard let http = try? HTTPClient(configuration: config.httpConfiguration, logger: Logger(label: "splashd.sources")) else { return nil }
        return SearchService(
            store: store, http: http,
            configuration: .init(unsplashAPIURL: config.unsplashAPIURL, unsplashAccessKey: config.unsplashAccessKey, nasaAPIURL: config.nasaAPIURL),
            logger: logger)
    }

    /// The monitor probes `<backend>/auth/v1/health` with its own HTTP client: a probe must not reuse a
    /// connection that died with the old network, nor wait behind sync transfers.
    static func makeConnectivityMonitor(config: DaemonConfig, state: DaemonState, logger: Logger) -> ConnectivityMonitor? {
        var http: HTTPClient
        do {
            var configuration = config.httpConfiguration
            configuration.connectTimeout = .seconds(3)
            configuration.freshConnections = true
            http = try HTTPClient(configuration: configuration, logger: Logger(label: "splashd.probe"))
        } catch {
            logger.error("no connectivity monitor: \(error)", metadata: ["splashd_op": "start"])
            return nil
        }
        let base = config.backendURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        var configuration = ConnectivityMonitor.Configuration(healthURL: base.map { $0 + "/auth/v1/health" }, apiKey: config.anonKey)
        configuration.watchNetlink = true
        return ConnectivityMonitor(configuration: configuration, http: http, logger: logger) { status in
            state.setConnectivity(status)
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
