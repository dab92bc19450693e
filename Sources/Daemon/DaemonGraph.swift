import Account
import Clocks
import Control
import Foundation
import HTTP
import Library
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Shared
import Store
import Sync
import Synchronization
import Systemd
import Web

/// Everything splashd is made of, built area by area from its configuration, directories and store:
/// the state and its bus, each capability, the Pictures folder, the router and the control server, and
/// the long-running services. Building starts nothing: `DaemonRunner` runs `services`, and a test
/// builds the same graph and speaks to its router in-process (`InProcessDaemon`).
struct DaemonGraph {
    let config: DaemonConfig
    let store: Store
    let audit: FileAudit
    let state: DaemonState
    let account: AccountCapability
    let clockKeeper: ServerClockKeeper?
    let network: NetworkCapability
    let sync: SyncCapability
    let images: ImageCapability?
    let imports: ImportCapability
    let google: GoogleCapability
    let guests: GuestCapability
    let sources: SourceCapability
    let realtime: RealtimeCapability?
    let desktop: DesktopCapability
    let pause: SyncPause
    let notifications: NotificationCapability?
    let picturesFolder: PicturesFolderService?
    let gallery: GalleryCapability?
    let galleryServer: GalleryServer?
    let router: Router
    let server: ControlServer
    let eventLoops: MultiThreadedEventLoopGroup
    let http: HTTPClients
    let notifier: SystemdNotifier
    let logger: Logger

    /// The store could not be read for the counts every status starts from.
    struct Unreadable: Error, CustomStringConvertible {
        let underlying: any Error
        var description: String { "cannot read the store: \(underlying)" }
    }

    /// `clock` is what the parts that wait count time on (the connectivity monitor's debounce and
    /// backoff, the background image work's patience, the Pictures folder's settle): the daemon's is
    /// the continuous clock, a test's may be one it advances by hand.
    static func make(
        config: DaemonConfig, directories: DaemonDirectories, store: Store, socket: ListeningSocket, gallerySockets: [Int32] = [],
        notifier: SystemdNotifier, clock: AnyClock<Duration>, http: HTTPClients = HTTPClients(), uncleanSince: Date? = nil,
        logger: Logger
    ) async throws(Unreadable) -> DaemonGraph {
        let state = DaemonState(bus: EventBus(), directories: directories.asProtocol)
        limitBandwidth(config.bandwidth, http: http, state: state)
        let audit: FileAudit
        do {
            // A minute before the unclean run's start: a file's row takes its time from the same
            // clock a moment later, and one checked too many costs a hash.
            audit = try uncleanSince.map {
                try FileAudit.filesRecorded(
                    since: $0.addingTimeInterval(-60), store: store, dataDirectory: directories.data, cacheDirectory: directories.cache)
            } ?? .none
        } catch {
            throw Unreadable(underlying: error)
        }
        let library = PhotoLibrary(store: store, audit: audit)
        do {
            let counts = try library.counts(accountId: "")
            state.setLibrary(counts.library)
            state.setOutbox(counts.outbox)
        } catch {
            throw Unreadable(underlying: error)
        }
        let counter = LibraryCounter(state: state, library: library, logger: logger)
        counter.observeStore()

        let account = await AccountCapability.start(
            config: config, store: store, state: state, counter: counter, stateDirectory: directories.state, http: http, logger: logger)
        // What the desktop holds back (a metered network, the battery, a suspend): asked by the network's
        // gate, the image work and the push, set by `desktop` once everything it rings is made.
        let background = BackgroundGate()
        let network = await NetworkCapability.make(
            config: config, state: state, account: account, background: background, http: http, clock: clock, logger: logger)
        let sync = SyncCapability.make(
            config: config, store: store, state: state, account: account, network: network.gate,
            dataDirectory: directories.data, logger: logger)
        let images = ImageCapability.make(
            config: config, store: store, state: state, directories: directories, network: network.gate, background: background,
            health: network.health, push: sync.engine, http: http, clock: clock, logger: logger)
        audit.followRemovals { key, reason in
            logger.warning("a file written before the last unclean stop was damaged; it is fetched again: \(reason)", metadata: [
                "splashd_op": "audit", "splashd_photo": "\(key.photoId)", "splashd_variant": "\(key.variant)",
            ])
            images?.queue.ring()
        }
        let pictures = PictureCapability(config: config)
        let edits = EditCapability.make(
            config: config, store: store, directories: directories, images: images, network: network.gate,
            announce: sync.announce, pictures: pictures, logger: logger)
        let imports = ImportCapability.make(
            config: config, store: store, state: state, renditions: images?.renditions, announce: sync.announce, logger: logger)
        let gallery = GalleryCapability.make(
            config: config, directories: directories, inherited: gallerySockets, state: state, clock: clock, logger: logger)
        let notifications = NotificationCapability.make(
            config: config, state: state, account: account, gallery: gallery, dataDirectory: directories.data, clock: clock, logger: logger)
        let google = GoogleCapability.make(
            config: config, store: store, directories: directories, importer: imports.importer, state: state,
            renditions: images?.renditions, http: http, background: background, logger: logger,
            ended: { notifications?.googleEnded(because: $0) })
        let guests = GuestCapability(adoption: GuestAdoption(store: store, announce: sync.announce), logger: logger)
        let sources = SourceCapability.make(
            config: config, store: store, state: state, images: images, health: network.health, http: http, logger: logger)
        let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let realtime = RealtimeCapability.make(
            config: config, store: store, state: state, account: account, sync: sync, network: network.gate, group: eventLoops, logger: logger)
        let waiters = HoldWaiters(
            gate: background, account: account, images: images, sync: sync, realtime: realtime, network: network, google: google)
        let desktop = DesktopCapability.make(
            config: config, state: state, store: store, gate: background, waiters: waiters, clock: clock, logger: logger)
        let pause = SyncPause(path: directories.state + "/pause.json", gate: background, clock: clock, logger: logger) { status in
            state.setPause(status)
            waiters.ring()
        }
        state.setPause(pause.current)
        let clockKeeper = Self.clockKeeper(account: account, state: state, network: network.gate, logger: logger)
        Self.followStatusLine(state: state, notifier: notifier)
        // The library as a folder of links where picture viewers look (pictures.folder).
        let picturesFolder = config.picturesFolder.map { folder in
            PicturesFolderService(
                folder: PicturesFolder(store: store, folder: folder, dataDirectory: directories.data), enabled: config.picturesExport,
                accountId: { state.actingAccount },
                downloadPatience: images.map { _ in .seconds(2) }, clock: clock, logger: logger)
        }
        picturesFolder?.follow(state.bus, counts: state.current.library, library: library)

        let router = Routes.make(
            state: state, library: library, logger: logger, account: account, sync: sync, search: sources.search,
            feeds: sources.feeds, images: images, edits: edits, imports: imports, guests: guests,
            pictures: pictures, picturesFolder: picturesFolder, google: google, gallery: gallery, pause: pause)
        var serverConfiguration = ControlServer.Configuration(socket: socket)
        serverConfiguration.maximumLineBytes = config.maximumLineBytes
        serverConfiguration.maximumConnections = config.maximumConnections
        serverConfiguration.eventQueueCapacity = config.eventQueueCapacity
        serverConfiguration.idleTimeout = .seconds(Int64(config.idleTimeoutSeconds))
        let server = ControlServer(configuration: serverConfiguration, router: router, logger: logger, group: eventLoops)
        let galleryServer = gallery?.server(
            router: router,
            images: GalleryImageFiles.following(
                library: library, images: images, dataDirectory: directories.data, cacheDirectory: directories.cache),
            group: eventLoops)

        return DaemonGraph(
            config: config, store: store, audit: audit, state: state, account: account, clockKeeper: clockKeeper, network: network, sync: sync, images: images, imports: imports, google: google, guests: guests, sources: sources,
            realtime: realtime, desktop: desktop, pause: pause, notifications: notifications, picturesFolder: picturesFolder, gallery: gallery, galleryServer: galleryServer, router: router,
            server: server, eventLoops: eventLoops,
            http: http, notifier: notifier, logger: logger)
    }

    /// Closes what building opened — the HTTP clients' threads, the event loops — for a graph that was
    /// built and never run (a running daemon's services close their own as they stop).
    func close() async {
        http.shutdownAll()
        try? await eventLoops.shutdownGracefully()
    }

    /// The long-running parts, in the order they start; they stop in reverse: the shutdown announcer
    /// first, the control socket after the reload handler, the watchdog last so that it keeps pinging
    /// while the others drain.
    func services(reload: ReloadService) -> [ServiceGroupConfiguration.ServiceConfiguration] {
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let interval = SystemdNotifier.watchdogInterval() {
            services.append(.init(service: WatchdogService(
                interval: interval, store: store, eventLoop: eventLoops.next(), notifier: notifier, logger: logger)))
        }
        services.append(.init(service: server))
        // A gallery that cannot listen says so (web.open) and the daemon goes on without it.
        if let galleryServer { services.append(.init(service: galleryServer, successTerminationBehavior: .ignore)) }
        services.append(.init(service: reload))
        services.append(.init(service: account.refreshService))
        if let clockKeeper { services.append(.init(service: clockKeeper)) }
        if let monitor = network.monitor { services.append(.init(service: monitor)) }
        if let signals = desktop.signals { services.append(.init(service: signals)) }
        services.append(.init(service: pause))
        if let notifications { services.append(.init(service: notifications)) }
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
        if audit.remaining > 0 {
            services.append(.init(service: FileAuditService(audit: audit, logger: logger), successTerminationBehavior: .ignore))
        }
        // Google Photos imports go on where a stop or a crash left them.
        if let picks = google.picks { services.append(.init(service: picks)) }
        // An adoption of the guest's likes and edits that a crash cut short goes on, beside the rest.
        services.append(.init(
            service: GuestAdoptionResumer(guests: guests, accountId: state.current.account.userId), successTerminationBehavior: .ignore))
        // Registered last, so it is the first to hear of a graceful shutdown.
        services.append(.init(
            service: ShutdownAnnouncer(notifier: notifier, state: state, logger: logger),
            successTerminationBehavior: .gracefullyShutdownGroup))
        return services
    }
}

extension DaemonGraph {
    /// Puts `rates` in force over every transfer, and in the status.
    static func limitBandwidth(_ rates: BandwidthLimits.Rates, http: HTTPClients, state: DaemonState) {
        http.bandwidth.set(rates)
        state.setBandwidth(BandwidthStatus(maxDownloadRate: rates.download, maxUploadRate: rates.upload))
    }

    /// systemd's STATUS= line follows connectivity, the account and the queue as they change.
    static func followStatusLine(state: DaemonState, notifier: SystemdNotifier) {
        let statusLine = Mutex("")
        _ = state.bus.subscribe(types: [.accountChanged, .connectivityChanged, .outboxChanged, .desktopChanged, .pauseChanged], snapshot: {}) { _ in
            let line = state.statusLine()
            let changed = statusLine.withLock { last in defer { last = line }; return last != line }
            if changed { notifier.status(line) }
        }
    }
}
