import Support

/// What the push engine needs to know about the network, whatever watches it.
public struct NetworkGate: Sendable {
    /// False when the connectivity monitor knows the backend is unreachable.
    public var isOnline: @Sendable () -> Bool
    /// A request failed with a network error: the monitor should probe.
    public var reportFailure: @Sendable (String) -> Void
    /// Look again now (a person asked to sync).
    public var probeNow: @Sendable () -> Void
    /// Signalled when `isOnline` may have changed: a wait on the network wakes then, not on a timer.
    public var changed: ChangeSignal
    /// Whether whole files nobody is waiting for may go now (not on a metered network: `BackgroundGate`).
    public var allowsBulk: @Sendable () -> Bool

    public init(
        isOnline: @escaping @Sendable () -> Bool, reportFailure: @escaping @Sendable (String) -> Void,
        probeNow: @escaping @Sendable () -> Void = {}, changed: ChangeSignal = ChangeSignal(),
        allowsBulk: @escaping @Sendable () -> Bool = { true }
    ) {
        self.allowsBulk = allowsBulk
        self.isOnline = isOnline
        self.reportFailure = reportFailure
        self.probeNow = probeNow
        self.changed = changed
    }

    /// Always online (tests, or no monitor): failures are only retried.
    public static let alwaysOnline = NetworkGate(isOnline: { true }, reportFailure: { _ in })
}
