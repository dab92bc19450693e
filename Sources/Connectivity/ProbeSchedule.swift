import Shared
import Support

/// When the next probe is due, as a pure function of what happened. No clock of its own: every input carries
/// `now` (an instant of whatever clock the monitor counts on), so tests drive it with made-up instants.
/// `deadline == nil` means nothing is due: the monitor then sleeps with no timer at all (idle means asleep).
struct ProbeSchedule<Instant: InstantProtocol<Duration>>: Sendable {
    /// A burst of network changes is probed once, `debounce` after the last change...
    let debounce: Duration
    /// ...but no later than this after the first change of the burst, so a change storm cannot starve probing.
    let maxDebounce: Duration
    private(set) var backoff: Backoff
    private(set) var deadline: Instant?
    private var burstStart: Instant?

    init(debounce: Duration, backoff: Backoff) {
        self.debounce = debounce
        self.maxDebounce = debounce * 4
        self.backoff = backoff
    }

    /// A netlink change, or a wall-clock jump (resume): the network may be different, so probe soon and start the
    /// backoff over.
    mutating func networkChanged(at now: Instant) {
        backoff.reset()
        let start = burstStart ?? now
        burstStart = start
        deadline = min(now.advanced(by: debounce), start.advanced(by: maxDebounce))
    }

    /// A request elsewhere failed with a network error. Worth a probe only if we believe we are online (or do not
    /// know yet): while offline or degraded the backoff timer is already running, and a retrying sync engine must
    /// not turn into a probe storm.
    mutating func requestFailed(at now: Instant, state: ConnectivityStatus.State) {
        guard state == .online || state == .unknown else { return }
        if let deadline, deadline <= now.advanced(by: debounce) { return }
        deadline = now.advanced(by: debounce)
    }

    /// Someone asked for a probe (startup, `splashctl sync`): now, and the backoff starts over.
    mutating func probeRequested(at now: Instant) {
        backoff.reset()
        burstStart = nil
        deadline = now
    }

    func isDue(at now: Instant) -> Bool {
        guard let deadline else { return false }
        return deadline <= now
    }

    mutating func probeStarted() {
        deadline = nil
        burstStart = nil
    }

    /// After a probe: online needs nothing more until something changes; otherwise re-probe after the backoff.
    mutating func probeFinished(
        at now: Instant, state: ConnectivityStatus.State, using generator: inout some RandomNumberGenerator
    ) {
        if state == .online {
            backoff.reset()
            deadline = nil
        } else {
            deadline = now.advanced(by: backoff.next(using: &generator))
        }
    }
}
