import Clocks
import Logging
import ServiceLifecycle
import Support
import Synchronization

/// The desktop's word on this machine, from the system bus: NetworkManager's metered flag, UPower's
/// battery, power-profiles-daemon's power saver (to `conditionsChanged`, each change settled for `settle` before
/// it counts: a flag that flaps ten times a second is heard once it stops), and logind's suspend
/// (`PrepareForSleep`), met with a delay inhibitor: `beforeSleep` runs, for at most `sleepBudget`, and
/// the inhibitor is let go; after the resume it is taken again and `afterResume` runs.
public final class DesktopSignals: Service, Sendable {
    public struct Handlers: Sendable {
        public var conditionsChanged: @Sendable (DesktopConditions) -> Void
        public var beforeSleep: @Sendable () async -> Void
        public var afterResume: @Sendable () async -> Void

        public init(
            conditionsChanged: @escaping @Sendable (DesktopConditions) -> Void, beforeSleep: @escaping @Sendable () async -> Void,
            afterResume: @escaping @Sendable () async -> Void
        ) {
            self.conditionsChanged = conditionsChanged
            self.beforeSleep = beforeSleep
            self.afterResume = afterResume
        }
    }

    public static let settle = Duration.milliseconds(500)
    /// logind waits up to its InhibitDelayMaxSec (5 s by default); a person closing the lid should not.
    public static let sleepBudget = Duration.milliseconds(800)

    private let handlers: Handlers
    private let clock: AnyClock<Duration>
    private let logger: Logger
    private let watcher: BusWatcher
    private let inhibitor = SleepInhibitor()
    /// The readings as they come, before they settle.
    private let heard = Heard()
    private let settled = Mutex(DesktopConditions())
    private let sleepEvents: AsyncStream<Bool>
    private let sleepEventsIn: AsyncStream<Bool>.Continuation

    final class Heard: Sendable {
        let readings = Mutex(Readings())
        let changed = ChangeSignal()

        func note(_ change: @Sendable (inout Readings) -> Void) {
            readings.withLock { change(&$0) }
            changed.signal()
        }
    }

    struct Readings {
        var bus = false
        var inhibitor = false
        var metered: Bool?
        var onBattery: Bool?
        var profile: String?
        var legacyProfile: String?

        var conditions: DesktopConditions {
            DesktopConditions(
                bus: bus, metered: metered, onBattery: onBattery, powerSaver: (profile ?? legacyProfile).map { $0 == "power-saver" },
                sleepInhibitor: inhibitor)
        }
    }

    public init(handlers: Handlers, clock: AnyClock<Duration>, logger: Logger) throws(DBusFailure) {
        self.handlers = handlers
        self.clock = clock
        self.logger = logger
        (sleepEvents, sleepEventsIn) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .unbounded)
        let heard = heard, inhibitor = inhibitor, sleepEventsIn = sleepEventsIn
        watcher = try BusWatcher(
            bus: .system,
            properties: [
                .init(service: "org.freedesktop.NetworkManager", path: "/org/freedesktop/NetworkManager",
                      interface: "org.freedesktop.NetworkManager", name: "Metered", kind: .uint32) { value in
                    heard.note { if case .uint32(let raw)? = value { $0.metered = DesktopConditions.metered(raw) } else { $0.metered = nil } }
                },
                .init(service: "org.freedesktop.UPower", path: "/org/freedesktop/UPower", interface: "org.freedesktop.UPower",
                      name: "OnBattery", kind: .bool) { value in
                    heard.note { if case .bool(let on)? = value { $0.onBattery = on } else { $0.onBattery = nil } }
                },
                .init(service: "org.freedesktop.UPower.PowerProfiles", path: "/org/freedesktop/UPower/PowerProfiles",
                      interface: "org.freedesktop.UPower.PowerProfiles", name: "ActiveProfile", kind: .string) { value in
                    heard.note { if case .string(let profile)? = value { $0.profile = profile } else { $0.profile = nil } }
                },
                // power-profiles-daemon before 0.20 has only its first name.
                .init(service: "net.hadess.PowerProfiles", path: "/net/hadess/PowerProfiles",
                      interface: "net.hadess.PowerProfiles", name: "ActiveProfile", kind: .string) { value in
                    heard.note { if case .string(let profile)? = value { $0.legacyProfile = profile } else { $0.legacyProfile = nil } }
                },
            ],
            signals: [
                .init(service: "org.freedesktop.login1", path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                      member: "PrepareForSleep") { message in
                    if let sleeping = try? message.readBool() { sleepEventsIn.yield(sleeping) }
                },
            ],
            presences: [
                .init(service: "org.freedesktop.login1") { connection in
                    defer { heard.note { $0.inhibitor = inhibitor.isHeld } }
                    guard let connection else { return inhibitor.release() }
                    Self.takeInhibitor(inhibitor, connection, logger: logger)
                },
            ],
            connectionChanged: { connected in heard.note { $0.bus = connected } },
            logger: logger)
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await withTaskCancellationHandler { await self.watcher.run() } onCancel: { self.watcher.stop() } }
            group.addTask { await self.settleConditions() }
            group.addTask { await self.followSleep() }
            try? await gracefulShutdown()
            sleepEventsIn.finish()
            group.cancelAll()
        }
    }

    /// Publishes the readings once they have held still for `settle`.
    private func settleConditions() async {
        var seen = heard.changed.generation
        while !Task.isCancelled {
            await heard.changed.wait(beyond: seen)
            repeat {
                seen = heard.changed.generation
                try? await clock.sleep(for: Self.settle)
            } while heard.changed.generation != seen && !Task.isCancelled
            let now = heard.readings.withLock { $0.conditions }
            let changed = settled.withLock { settled in defer { settled = now }; return settled != now }
            if changed { handlers.conditionsChanged(now) }
        }
    }

    /// Takes logind's delay inhibitor unless held; one that cannot be had is said, and splashd goes on.
    private static func takeInhibitor(_ inhibitor: SleepInhibitor, _ connection: DBusConnection, logger: Logger) {
        do throws(DBusFailure) {
            if !inhibitor.isHeld { try inhibitor.take(connection) }
        } catch {
            logger.warning("D-Bus: cannot delay a suspend (\(error)); a sleep may cut writes short", metadata: ["splashd_op": "dbus"])
        }
    }

    private func followSleep() async {
        for await sleeping in sleepEvents {
            if sleeping {
                logger.info("the machine is about to sleep", metadata: ["splashd_op": "sleep"])
                // Let go at the budget's end even if the work is not done: a sleep is the person's to
                // take. The work goes on meanwhile; what a resume does waits for it.
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await self.handlers.beforeSleep() }
                    group.addTask { try? await self.clock.sleep(for: Self.sleepBudget) }
                    await group.next()
                    inhibitor.release()
                    heard.note { $0.inhibitor = false }
                    group.cancelAll()
                }
            } else {
                logger.info("the machine woke up", metadata: ["splashd_op": "sleep"])
                watcher.perform { [inhibitor, heard, logger] connection in
                    Self.takeInhibitor(inhibitor, connection, logger: logger)
                    heard.note { $0.inhibitor = inhibitor.isHeld }
                }
                await handlers.afterResume()
            }
        }
    }
}
