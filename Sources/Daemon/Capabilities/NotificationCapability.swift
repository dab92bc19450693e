import Account
import CLIText
import Clocks
import Desktop
import Foundation
import Logging
import ServiceLifecycle
import Shared

/// Desktop notifications of what needs the person, and only that: the server ended the session (sign
/// in again), the server refused a change, a like is held as a near-duplicate. At most one a minute of
/// each kind (`NotificationPacer`), in the language of the daemon's environment, each with one action —
/// a click opens the gallery at the screen where it is dealt with. Off with `notifications.enabled =
/// false`; without a session bus or a notification server, nothing shows and nothing else changes.
final class NotificationCapability: Service, Sendable {
    private let notifier: DesktopNotifier
    private let state: DaemonState
    private let account: AccountCapability
    private let pacer: NotificationPacer
    private let events: AsyncStream<Event>
    private let eventsIn: AsyncStream<Event>.Continuation
    private let logger: Logger

    static func make(
        config: DaemonConfig, state: DaemonState, account: AccountCapability, gallery: GalleryCapability?, clock: AnyClock<Duration>,
        logger: Logger
    ) -> NotificationCapability? {
        guard config.notificationsEnabled else { return nil }
        do {
            let notifier = try DesktopNotifier(logger: logger) { kind in Self.open(kind, gallery: gallery, logger: logger) }
            return NotificationCapability(notifier: notifier, state: state, account: account, clock: clock, logger: logger)
        } catch {
            logger.warning("no desktop notifications: \(error)", metadata: ["splashd_op": "notify"])
            return nil
        }
    }

    private init(notifier: DesktopNotifier, state: DaemonState, account: AccountCapability, clock: AnyClock<Duration>, logger: Logger) {
        self.notifier = notifier
        self.state = state
        self.account = account
        self.logger = logger
        pacer = NotificationPacer(clock: clock)
        (events, eventsIn) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
    }

    func run() async throws {
        let subscription = state.bus.subscribe(types: [.accountChanged, .outboxChanged], snapshot: { state.current }) { [eventsIn] in
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

    /// Turns the events into notes: a signed-in account signed out by the server (not by the person),
    /// more changes refused than before, more likes held than before.
    private func follow(from start: DaemonState.Values) async {
        var signedIn = start.account.state != .signedOut
        var rejected = start.outbox.rejected, held = start.outbox.duplicates ?? 0
        for await event in events {
            switch event {
            case .accountChanged(let status):
                let was = signedIn
                signedIn = status.state != .signedOut
                guard was, !signedIn, let reason = await account.manager.lastSignedOutReason else { continue }
                post(kind: "signed_out", .notifySignedOutSummary, .notifySignedOutBody(reason: reason.text()), action: .notifySignIn)
            case .outboxChanged(let counts):
                if counts.rejected > rejected {
                    post(kind: "rejected", .notifyRejectedSummary(counts.rejected - rejected), .notifyRejectedBody, action: .notifyShow)
                }
                if (counts.duplicates ?? 0) > held {
                    post(kind: "duplicate", .notifyDuplicateSummary, .notifyDuplicateBody, action: .notifyShow)
                }
                (rejected, held) = (counts.rejected, counts.duplicates ?? 0)
            default:
                continue
            }
        }
    }

    private func post(kind: String, _ summary: Message, _ body: Message, action: Message) {
        guard pacer.mayShow(kind) else {
            logger.debug("a notification of the same kind was shown within the minute", metadata: ["splashd_op": "notify", "splashd_kind": "\(kind)"])
            return
        }
        logger.info("notification", metadata: ["splashd_op": "notify", "splashd_kind": "\(kind)"])
        notifier.post(.init(kind: kind, summary: summary.text(), body: body.text(), action: action.text()))
    }

    /// A click: the gallery at the screen that deals with it, through a one-time address (xdg-open).
    private static func open(_ kind: String, gallery: GalleryCapability?, logger: Logger) {
        guard let gallery else {
            logger.notice("a notification was clicked, but the web gallery is off (web.enabled)", metadata: ["splashd_op": "notify"])
            return
        }
        let screen = kind == "signed_out" ? "account" : "status"
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
