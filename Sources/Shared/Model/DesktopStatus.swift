/// What the desktop says of this machine (NetworkManager, UPower and power-profiles-daemon on the
/// system bus) and what splashd holds back for it, as the config asks (`network.on_metered`,
/// `power.on_battery`, `power.on_power_saver`).
public struct DesktopStatus: Codable, Sendable, Equatable {
    /// Whether splashd hears the system bus now; false: what follows is unknown, and nothing waits for it.
    public var bus: Bool
    /// nil: not known (the service is not running, or does not know either).
    public var metered: Bool?
    public var onBattery: Bool?
    public var powerSaver: Bool?
    /// Why downloads and uploads nobody is waiting for (library files, originals, prefetched
    /// thumbnails, Google Photos picks) wait now; nil: they go.
    public var transfersHeld: HoldReason?
    /// Why background work (perceptual hashes, screen-sized copies, the duplicate scan, prefetch) waits now.
    public var backgroundHeld: HoldReason?
    /// Why sync itself waits (`network.on_metered = "pause"`): changes queue as when offline.
    public var syncHeld: HoldReason?
    /// Whether splashd holds logind's delay inhibitor: a suspend waits (at most a second) for it to
    /// finish its writes and close its live channel.
    public var sleepInhibitor: Bool

    public init(
        bus: Bool, metered: Bool? = nil, onBattery: Bool? = nil, powerSaver: Bool? = nil, transfersHeld: HoldReason? = nil,
        backgroundHeld: HoldReason? = nil, syncHeld: HoldReason? = nil, sleepInhibitor: Bool = false
    ) {
        self.bus = bus
        self.metered = metered
        self.onBattery = onBattery
        self.powerSaver = powerSaver
        self.transfersHeld = transfersHeld
        self.backgroundHeld = backgroundHeld
        self.syncHeld = syncHeld
        self.sleepInhibitor = sleepInhibitor
    }

    /// No bus heard (yet): nothing known, nothing held.
    public static let unknown = DesktopStatus(bus: false)

    public static let example = DesktopStatus(
        bus: true, metered: true, onBattery: false, powerSaver: false, transfersHeld: .metered, sleepInhibitor: true)
}

/// Why splashd holds work back.
public enum HoldReason: String, Codable, Sendable, CaseIterable {
    /// The network is metered (NetworkManager).
    case metered
    /// The machine runs on its battery (UPower).
    case onBattery = "on_battery"
    /// The power saver profile is on (power-profiles-daemon).
    case powerSaver = "power_saver"
}
