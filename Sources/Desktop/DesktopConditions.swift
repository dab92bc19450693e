/// What the desktop says of this machine now. nil: not known (no bus, the service not running, or it
/// does not know either): splashd then behaves as if the answer were no.
public struct DesktopConditions: Sendable, Equatable {
    /// Whether splashd hears the system bus now; false: nothing else is known.
    public var bus: Bool
    /// NetworkManager's `Metered`: yes or guess-yes count as metered (as its documentation asks).
    public var metered: Bool?
    /// UPower's `OnBattery`.
    public var onBattery: Bool?
    /// power-profiles-daemon's `ActiveProfile` is "power-saver".
    public var powerSaver: Bool?
    /// Whether splashd holds logind's delay inhibitor of sleep.
    public var sleepInhibitor: Bool

    public init(bus: Bool = false, metered: Bool? = nil, onBattery: Bool? = nil, powerSaver: Bool? = nil, sleepInhibitor: Bool = false) {
        self.bus = bus
        self.sleepInhibitor = sleepInhibitor
        self.metered = metered
        self.onBattery = onBattery
        self.powerSaver = powerSaver
    }

    /// NetworkManager's `NMMetered`: 0 unknown, 1 yes, 2 no, 3 guess-yes, 4 guess-no.
    static func metered(_ value: UInt32) -> Bool? {
        switch value {
        case 1, 3: true
        case 2, 4: false
        default: nil
        }
    }
}
