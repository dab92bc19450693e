import Account
import CLIText
import Clocks
import Desktop
import Foundation
import Logging
import ServiceLifecycle
import Shared

/// Desktop notifications of what needs the person, and only that: the server ended the session (sign
/// in again), Google ended the Google Photos connection, the server refused a change, a like is held
/// as a near-duplicate, the library's disk is full, a Google Photos pick is imported. At most one a minute of
/// each kind (`NotificationPacer`), in the language of the daemon's environment, each with one action —
/// a click opens the gallery at the screen where it is dealt with. Off with `notifications.enabled =
/// false`; without a session bus or a notification server, nothing shows and nothing else changes.
final class NotificationCapability: Service, Sendable {
    private let notifier: DesktopNotifier
    private let state: DaemonState
    private let account: AccountCapability
    private let pacer: NotificationPacer
    private let dataDirectory: String
    private let events: AsyncStream<Event>
    private let eventsIn: AsyncStream<Event>.Continuation
    private let logger: Logger

    static func make(
        config: DaemonConfig, state: DaemonState, account: AccountCapability, gallery: GalleryCapability?, dataDirectory: String,
        clock: AnyClock<Duration>, logger: Logger
    ) -> NotificationCapability? {
        guard config.notificationsEnabled else { return nil }
        do {
            let notifier = try DesktopNotifier(logger: logger) { kind in Self.open(kind, gallery: gallery, logger: logger) }
            return NotificationCapability(
                notifier: notifier, state: state, account: account, dataDirectory: dataDirectory, clock: clock, logger: logger)
        } catch {
            logger.warning("no desktop notifications: \(error)", metadata: ["splashd_op": "notify"])
            return nil
        }
    }

    private init(
        notifier: DesktopNotifier, state: DaemonState, account: AccountCapability, dataDirectory: String, clock: AnyClock<Duration>,
        logger: Logger
    ) {
        self.notifier = notifier
        self.dataDirectory = dataDirectory
        self.state = state
        self.account = account
        self.logger = logger
        pacer = NotificationPacer(clock: clock)
        (events, eventsIn) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
    }

    func run() async throws {
        let subscription = state.bus.subscribe(types: [.accountChanged, .outboxChanged, .importProgress, .imagesChanged], snapshot: { state.current }) { [eventsIn] in
            eventsIn.yield($0.event)
        }
        defer { state.bus.unsubscribe(subscription.id) }
        await withDiscardingTaskGroup { group in
            group.addTask { try? await self.notifier.run() }
            group.addTask { await self.follow(from: subscription.snapshot) }
            try? await gracefulShutdown()
            eventsIn.finish()
            group.cancelAll()
        }
    }

    /// Turns the events into notices (`NotificationRules`): the sign-out's reason is asked of the account
    /// only when a session ends, the disk's room only when a download failed.
    private func follow(from start: DaemonState.Values) async {
        var rules = NotificationRules(from: start, dataDirectory: dataDirectory)
        for await event in events {
            let reason = rules.endsASession(event) ? await account.manager.lastSignedOutReason : nil
            var free: UInt64?
            if case .imagesChanged(let images) = event, images.change == .failed { free = Self.freeBytes(dataDirectory) }
            for notice in rules.notices(for: event, signedOutBecause: reason, freeBytes: free) { post(notice) }
        }
    }

    /// Google ended the Google Photos connection (the person did not disconnect).
    func googleEnded(because reason: String) {
        post(NotificationRules.googleEnded(because: reason))
    }

    static func freeBytes(_ directory: String) -> UInt64? {
        var stats = statvfs()
        guard statvfs(directory, &stats) == 0 else { return nil }
        return UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
    }

    private func post(_ notice: NotificationRules.Notice) {
        guard pacer.mayShow(notice.kind) else {
            logger.debug("a notification of the same kind was shown within the minute", metadata: ["splashd_op": "notify", "splashd_kind": "\(notice.kind)"])
            return
        }
        logger.info("notification", metadata: ["splashd_op": "notify", "splashd_kind": "\(notice.kind)"])
        notifier.post(.init(kind: notice.kind, summary: notice.summary.text(), body: notice.body.text(), action: notice.action.text()))
    }

    /// A click: the gallery at the screen that deals with it, through a one-time address (xdg-open).
    private static func open(_ kind: String, gallery: GalleryCapability?, logger: Logger) {
        guard let gallery else {
            logger.notice("a notification was clicked, but the web gallery is off (web.enabled)", metadata: ["splashd_op": "notify"])
            return
        }
        let screen = switch kind {
        case "signed_out", "google_ended": "account"
        case "google_pick": "library"
        default: "status"
        }
        Task {
            do {
                let address = try await gallery.open().url + "#/" + screen
                let opener = Process()
                opener.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                opener.arguments = ["xdg-open", address]
                opener.terminationHandler = { process in
                    guard process.terminationStatus != 0 else { return }
                    logger.notice("xdg-open could not open the gallery (exit \(process.terminationStatus))", metadata: ["splashd_op": "notify"])
                }
                try opener.run()
            } catch {
                logger.notice("cannot open the gallery for a notification: \(error)", metadata: ["splashd_op": "notify"])
            }
        }
    }
}
