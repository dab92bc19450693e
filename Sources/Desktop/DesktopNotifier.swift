import Logging
import ServiceLifecycle
import Synchronization

/// Desktop notifications (org.freedesktop.Notifications on the person's session bus): `post` sends one,
/// without waiting for the server's answer (one that never answers costs a logged line, not a stuck
/// daemon), and a click on it (`ActionInvoked`) is handed to `clicked` with the note's kind. A session
/// without the bus or the service: nothing is shown, and the daemon goes on.
public final class DesktopNotifier: Service, Sendable {
    public struct Note: Sendable, Equatable {
        /// What it is about ("signed_out", "rejected"): a click hands it back.
        public var kind: String
        public var summary: String
        public var body: String
        /// The label of the one action, the notification's click.
        public var action: String

        public init(kind: String, summary: String, body: String, action: String) {
            self.kind = kind
            self.summary = summary
            self.body = body
            self.action = action
        }
    }

    private let watcher: BusWatcher
    private let logger: Logger
    private let shown = Shown()

    /// The kinds of the notifications shown, by the server's id (for their clicks), and whether the
    /// server left the last one unanswered.
    private final class Shown: Sendable {
        let kinds = Mutex<[UInt32: String]>([:])
        let unanswered = Atomic(false)
    }

    public init(logger: Logger, clicked: @escaping @Sendable (String) -> Void) throws(DBusFailure) {
        self.logger = logger
        let shown = shown
        watcher = try BusWatcher(
            bus: .session,
            signals: [
                .init(service: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                      interface: "org.freedesktop.Notifications", member: "ActionInvoked") { message in
                    guard let id = try? message.readUInt32(), let kind = shown.kinds.withLock({ $0[id] }) else { return }
                    clicked(kind)
                },
                .init(service: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                      interface: "org.freedesktop.Notifications", member: "NotificationClosed") { message in
                    guard let id = try? message.readUInt32() else { return }
                    _ = shown.kinds.withLock { $0.removeValue(forKey: id) }
                },
            ],
            logger: logger)
    }

    public func run() async throws {
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.watcher.run() }
                try? await gracefulShutdown()
                self.watcher.stop()
            }
        } onCancel: {
            watcher.stop()
        }
    }

    /// Shows `note` (once the session bus is there; before, or without one, nothing).
    public func post(_ note: Note) {
        let shown = shown, logger = logger
        watcher.perform { connection in
            do throws(DBusFailure) {
                try connection.callAsync(
                    destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                    interface: "org.freedesktop.Notifications", member: "Notify",
                    arguments: [
                        .string("splashd"), .uint32(0), .string("folder-pictures"), .string(note.summary), .string(note.body),
                        .strings(["default", note.action]), .emptyDictionary, .int32(-1),
                    ]
                ) { reply in
                    guard let reply, let id = try? reply.readUInt32() else {
                        // Said once until one is answered again: a server that never answers would say it each time.
                        if !shown.unanswered.exchange(true, ordering: .relaxed) {
                            logger.notice("the desktop's notification server is not there or did not answer; notifications may not show",
                                          metadata: ["splashd_op": "notify"])
                        }
                        return
                    }
                    shown.unanswered.store(false, ordering: .relaxed)
                    shown.kinds.withLock { $0[id] = note.kind }
                }
            } catch {
                logger.notice("cannot show a notification: \(error)", metadata: ["splashd_op": "notify"])
            }
        }
    }
}
