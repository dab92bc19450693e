import Clocks
import Foundation
import HTTP
import Logging
import ServiceLifecycle
import Shared
import Support
import Synchronization

/// Knows whether the backend can be reached: `online`, `offline` or `degraded` (the server errs), with a reason.
///
/// How it decides: an active probe, `GET <healthURL>` with a short timeout (see `ProbeVerdict.classify`). What makes
/// it probe: startup; any rtnetlink change (links, addresses, routes), debounced; a request elsewhere that failed with
/// a network error (`reportNetworkFailure`); `probeNow()`; a wall-clock jump or a resume from suspend. While
/// offline or degraded it re-probes with backoff (1 s doubling to 5 min, jittered), reset by any network change.
///
/// Idle means asleep: online and with nothing changing, no timer runs at all. The netlink socket and the clock
/// timerfd are polled by one dedicated thread that blocks in poll(2) without timeout; the probe loop is a task
/// suspended on an AsyncStream.
public final class ConnectivityMonitor: Service, Sendable {
    public struct Configuration: Sendable {
        /// The backend's health endpoint, e.g. `https://PROJECT.supabase.co/auth/v1/health`. nil: no backend is
        /// configured; the state is then `offline` with reason "no backend configured" and nothing is probed.
        public var healthURL: String?
        /// Sent as the `apikey` header (the Supabase gateway wants it on every request, health included).
        public var apiKey: String?
        public var probeTimeout: Duration = .seconds(3)
        /// Quiet time after the last netlink message before probing (a link going down sends a burst).
        public var debounce: Duration = .milliseconds(250)
        public var minBackoff: Duration = .seconds(1)
        public var maxBackoff: Duration = .seconds(300)
        /// Subscribe to rtnetlink. Off, connectivity changes are noticed only through failed requests and backoff.
        public var watchNetlink = true
        /// Watch for wall-clock jumps (timerfd with TFD_TIMER_CANCEL_ON_SET).
        public var watchClock = true
        /// Tests only: open the netlink socket in this network namespace (a path like /run/netns/NAME).
        var netlinkNamespace: String?

        public init(healthURL: String?, apiKey: String? = nil) {
            self.healthURL = healthURL
            self.apiKey = apiKey
        }
    }

    enum Trigger: Sendable {
        case network([String])
        case clockChanged
        case requestFailed(String)
        case probeNow
        case timer(generation: Int)
        /// Tests only: resumed once every trigger sent before it is handled and the timer armed (`settled()`).
        case settle(CheckedContinuation<Void, Never>)
    }

    private struct State {
        var tracker: StatusTracker
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
        var probes = 0
    }

    public let configuration: Configuration
    private let http: HTTPClient
    /// Debounce, backoff and their timer count on it; a test's own clock lets hours pass at once.
    private let clock: AnyClock<Duration>
    private let logger: Logger
    private let onChange: @Sendable (ConnectivityStatus) -> Void
    /// Told of every network change (netlink, a resume): other services known down are worth a try.
    private let networkChanged: @Sendable () -> Void
    private let state: Mutex<State>
    private let triggers: AsyncStream<Trigger>
    private let trigger: AsyncStream<Trigger>.Continuation

    public init(
        configuration: Configuration, http: HTTPClient, clock: AnyClock<Duration>, logger: Logger,
        networkChanged: @escaping @Sendable () -> Void = {}, onChange: @escaping @Sendable (ConnectivityStatus) -> Void
    ) {
        self.configuration = configuration
        self.http = http
        self.clock = clock
        self.logger = logger
        self.networkChanged = networkChanged
        self.onChange = onChange
        let initial =
            configuration.healthURL == nil
            ? ConnectivityStatus(state: .offline, text: .noBackendConfigured, since: Date())
            : ConnectivityStatus(state: .unknown, text: .notProbedYet)
        state = Mutex(State(tracker: StatusTracker(initial)))
        // Bounded: the loop only needs to know that something happened, not every netlink message.
        (triggers, trigger) = AsyncStream.makeStream(of: Trigger.self, bufferingPolicy: .bufferingNewest(64))
    }

    deinit { trigger.finish() }

    /// The latest status; never waits.
    public var current: ConnectivityStatus { state.withLock { $0.tracker.status } }

    /// Probes made so far (for tests and the debug log).
    var probeCount: Int { state.withLock { $0.probes } }

    /// A request elsewhere failed with a network error (not an HTTP status): probe soon if we believed we were
    /// online. Cheap and non-blocking; call it from any HTTP user.
    public func reportNetworkFailure(_ reason: String) { trigger.yield(.requestFailed(reason)) }

    /// Probe now and start the backoff over (e.g. `splashctl sync`, a config reload).
    public func probeNow() { trigger.yield(.probeNow) }

    /// Tests only: feeds the loop what the event source would (a clock jump cannot be made on a shared machine).
    func inject(_ event: Trigger) { trigger.yield(event) }

    /// Tests only: returns once the probe loop has handled every trigger sent before this call, probed
    /// if that was due, and armed its timer or not: what the monitor does with no news is then known.
    func settled() async {
        await withCheckedContinuation { continuation in trigger.yield(.settle(continuation)) }
    }

    /// Returns once the state is `online` (at once if it is); returns early if the task is cancelled.
    public func waitUntilOnline() async {
        let id = state.withLock { state in defer { state.nextWaiter += 1 }; return state.nextWaiter }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    // Task.isCancelled is set before the cancellation handler runs, and both sides hold the lock,
                    // so either we see the cancellation here or the handler finds the waiter.
                    if state.tracker.status.state == .online || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Runs until graceful shutdown (or cancellation).
    public func run() async throws {
        let source = startEventSource()
        defer { source?.stop() }
        guard let healthURL = configuration.healthURL else {
            // Nothing to probe, but the photo services and image hosts (`networkChanged`) still want
            // to hear that the network changed: a host marked down is asked again at once.
            logger.notice("connectivity: no backend configured; not probing")
            await cancelWhenGracefulShutdown { [self] in await forwardNetworkChanges() }
            return
        }
        await cancelWhenGracefulShutdown { [self] in await loop(healthURL: healthURL) }
    }

    /// With no backend: network changes (and a resume from suspend) told to `networkChanged`, nothing probed.
    private func forwardNetworkChanges() async {
        for await event in triggers {
            switch event {
            case .network(let types):
                logger.debug("connectivity: netlink \(types.joined(separator: ","))")
                networkChanged()
            case .clockChanged:
                networkChanged()
            case .settle(let continuation):
                continuation.resume()
            case .requestFailed, .probeNow, .timer:
                break
            }
        }
    }

    /// Opens the netlink socket and the clock timer and starts their thread. A failure is logged and the monitor
    /// carries on without that source: probes on failures and backoff still work.
    private func startEventSource() -> EventSource? {
        var netlink: FileDescriptor?
        if configuration.watchNetlink {
            do {
                netlink = try RTNetlink.subscribe(namespace: configuration.netlinkNamespace)
            } catch {
                logger.warning("connectivity: no netlink subscription (\(error)); network changes are noticed only when requests fail")
            }
        }
        var clock: ClockChangeTimer?
        if configuration.watchClock {
            do {
                clock = try ClockChangeTimer()
            } catch {
                logger.warning("connectivity: no wall-clock watch (\(error))")
            }
        }
        guard netlink != nil || clock != nil else { return nil }
        let trigger = trigger
        do {
            return try EventSource(netlink: netlink, clock: clock, logger: logger) { event in
                switch event {
                case .network(let types): trigger.yield(.network(types))
                case .clockChanged: trigger.yield(.clockChanged)
                }
            }
        } catch {
            logger.warning("connectivity: event source failed to start (\(error))")
            return nil
        }
    }

    /// The probe loop: one task, so probes never overlap and onChange calls come in order.
    private func loop(healthURL: String) async {
        var schedule = ProbeSchedule<AnyClock<Duration>.Instant>(
            debounce: configuration.debounce,
            backoff: Backoff(minimum: configuration.minBackoff, maximum: configuration.maxBackoff))
        var random = SystemRandomNumberGenerator()
        var suspend = SuspendDetector()
        var timer: Task<Void, Never>?
        var armed: AnyClock<Duration>.Instant?
        var generation = 0
        var settling: [CheckedContinuation<Void, Never>] = []
        defer {
            timer?.cancel()
            for waiter in settling { waiter.resume() }
        }

        schedule.probeRequested(at: clock.now)
        var pending: Trigger? = nil
        var iterator = triggers.makeAsyncIterator()
        while !Task.isCancelled {
            if let event = pending {
                let now = clock.now
                if let slept = suspend.check() {
                    logger.info("connectivity: resumed after \(slept) asleep; re-probing")
                    schedule.networkChanged(at: now)
                    networkChanged()
                }
                switch event {
                case .network(let types):
                    logger.debug("connectivity: netlink \(types.joined(separator: ","))")
                    schedule.networkChanged(at: now)
                    networkChanged()
                case .clockChanged:
                    logger.info("connectivity: wall clock changed (set, or resumed from suspend); re-probing")
                    schedule.networkChanged(at: now)
                case .requestFailed(let reason):
                    logger.debug("connectivity: a request failed: \(reason)")
                    schedule.requestFailed(at: now, state: current.state)
                case .probeNow:
                    logger.debug("connectivity: probe requested")
                    schedule.probeRequested(at: now)
                case .timer(let fired):
                    if fired != generation { break }
                    armed = nil
                case .settle(let continuation):
                    settling.append(continuation)
                }
            }
            if schedule.isDue(at: clock.now) {
                schedule.probeStarted()
                var verdict = await probe(healthURL)
                if verdict?.state == .offline && current.state == .online && !Task.isCancelled {
                    // Confirm before going offline: right after a network switch the first request may go out on a
                    // kept-alive connection that died with the old network. libcurl drops a connection that failed, so
                    // the second attempt connects afresh. Costs one extra probe per online-to-offline transition.
                    logger.debug("connectivity: probe failed while online; confirming")
                    verdict = await probe(healthURL) ?? verdict
                }
                if let verdict {
                    publish(verdict)
                    schedule.probeFinished(at: clock.now, state: verdict.state, using: &random)
                } else if Task.isCancelled {
                    break  // shutting down
                }
                // Otherwise the HTTP client was shut down under us: say nothing, wait for the next trigger. Returning
                // here would end the service early, which a ServiceGroup takes for a failure of the whole daemon.
            }
            // At most one timer, and none when nothing is due.
            if schedule.deadline != armed {
                timer?.cancel()
                generation += 1
                armed = schedule.deadline
                if let deadline = schedule.deadline {
                    let fired = generation
                    let trigger = trigger
                    let clock = clock
                    timer = Task {
                        do { try await clock.sleep(until: deadline) } catch { return }
                        trigger.yield(.timer(generation: fired))
                    }
                } else {
                    timer = nil
                }
            }
            for waiter in settling { waiter.resume() }
            settling = []
            guard let next = await iterator.next() else { break }
            pending = next
        }
    }

    /// One GET of the health endpoint.
    private func probe(_ url: String) async -> ProbeVerdict? {
        state.withLock { $0.probes += 1 }
        let request = HTTPRequest(
            url: url, headers: configuration.apiKey.map { [("apikey", $0)] } ?? [], timeout: configuration.probeTimeout)
        let outcome: ProbeOutcome
        let started = ContinuousClock.now
        do {
            outcome = .answered(status: try await http.send(request).status)
        } catch {
            outcome = .failed(error)
        }
        let verdict = ProbeVerdict.classify(outcome, timeout: configuration.probeTimeout)
        logger.debug("connectivity: probe \(outcome) in \(ContinuousClock.now - started)")
        return verdict
    }

    private func publish(_ verdict: ProbeVerdict) {
        let (changed, waiters) = state.withLock { state -> (ConnectivityStatus?, [CheckedContinuation<Void, Never>]) in
            guard let changed = state.tracker.apply(verdict, at: Date()) else { return (nil, []) }
            guard changed.state == .online else { return (changed, []) }
            defer { state.waiters = [:] }
            return (changed, Array(state.waiters.values))
        }
        guard let changed else { return }
        let level: Logger.Level = changed.state == .online ? .notice : .warning
        logger.log(level: level, "connectivity: \(changed.state.rawValue): \(changed.reason)", metadata: ["splashd_op": "connectivity"])
        for waiter in waiters { waiter.resume() }
        onChange(changed)
    }
}
