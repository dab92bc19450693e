import Account
import Clocks
import Connectivity
import Desktop
import Logging
import Realtime
import Shared
import Store
import Support
import Sync

/// The desktop's word (`DesktopSignals`, from the system bus) made into what splashd holds back
/// (`BackgroundGate`, as the config's `network.on_metered`, `power.on_battery` and `power.on_power_saver`
/// ask), what status and its event say, and what a suspend does: before it, sync counts as offline
/// (the live channel closes) and the WAL is checkpointed; after it, every service is probed again at
/// once, and the channel rejoins and pulls what it missed. Nil signals: no D-Bus here (status says
/// nothing is known, nothing is held).
struct DesktopCapability: Sendable {
    let signals: DesktopSignals?

    static func make(
        config: DaemonConfig, state: DaemonState, store: Store, gate: BackgroundGate, waiters: HoldWaiters, clock: AnyClock<Duration>,
        logger: Logger
    ) -> DesktopCapability {
        state.setDesktop(.unknown)
        let handlers = DesktopSignals.Handlers(
            conditionsChanged: { conditions in
                let wanted = holds(for: conditions, config)
                gate.update { current in
                    current.transfers = wanted.transfers
                    current.background = wanted.background
                    current.sync = wanted.sync
                }
                state.setDesktop(status(conditions, gate.current))
                logger.info("desktop: \(describe(conditions))", metadata: ["splashd_op": "desktop"])
                waiters.ring()
            },
            beforeSleep: {
                gate.update { $0.asleep = true }
                waiters.ring()
                do {
                    try store.checkpoint()
                } catch {
                    logger.warning("cannot checkpoint the store before sleep: \(error)", metadata: ["splashd_op": "sleep"])
                }
                await state.waitUntil { $0.live.state != .live }
            },
            afterResume: {
                gate.update { $0.asleep = false }
                // A session that expired while the machine slept is refreshed now.
                await waiters.account.manager.machineResumed()
                // The network may be another one now: every service is asked again at once.
                waiters.network.monitor?.probeNow()
                waiters.network.health.networkChanged()
                waiters.sync.pull?.ring()
                waiters.ring()
            })
        do {
            return DesktopCapability(signals: try DesktopSignals(handlers: handlers, clock: clock, logger: logger))
        } catch {
            logger.warning("no desktop signals: \(error)", metadata: ["splashd_op": "desktop"])
            return DesktopCapability(signals: nil)
        }
    }

    /// What the config asks to hold for what the desktop says.
    static func holds(for conditions: DesktopConditions, _ config: DaemonConfig) -> BackgroundGate.Holds {
        var holds = BackgroundGate.Holds()
        if conditions.metered == true {
            switch config.onMetered {
            case .deferBulk: holds.transfers = .metered
            case .pause: (holds.transfers, holds.sync) = (.metered, .metered)
            case .ignore: break
            }
        }
        if conditions.onBattery == true, config.onBattery == .deferBackground {
            holds.background = .onBattery
        } else if conditions.powerSaver == true, config.onPowerSaver == .deferBackground {
            holds.background = .powerSaver
        }
        return holds
    }

    static func status(_ conditions: DesktopConditions, _ holds: BackgroundGate.Holds) -> DesktopStatus {
        DesktopStatus(
            bus: conditions.bus, metered: conditions.metered, onBattery: conditions.onBattery, powerSaver: conditions.powerSaver,
            transfersHeld: holds.transfers, backgroundHeld: holds.background, syncHeld: holds.sync, sleepInhibitor: conditions.sleepInhibitor)
    }

    private static func describe(_ conditions: DesktopConditions) -> String {
        guard conditions.bus else { return "no system bus: nothing is known of the network's cost or the power" }
        func said(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "unknown" }
        return "metered \(said(conditions.metered)), on battery \(said(conditions.onBattery)), power saver \(said(conditions.powerSaver))"
    }
}
