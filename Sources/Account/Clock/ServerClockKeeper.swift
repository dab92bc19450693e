import Foundation
import Logging
import ServiceLifecycle
import Shared
import Supabase
import Support
import Synchronization

/// Keeps `ServerClock` sharp and known: while the backend answers and the estimate is looser than
/// `target`, it asks the server for its public Auth settings (a small answer, apart from the
/// connectivity monitor's health checks) at the moments that halve what is left of the
/// uncertainty (each answer's `Date` then falls on one side of a second's edge or the other), twenty
/// answers at most, so an estimate a second wide comes down to a few milliseconds in as many seconds.
/// It says how the device's clock stands (status, and the journal when it is a minute or more off); the
/// clock keeps what it learns itself (`ServerClock`'s `persist`). Asleep otherwise: it wakes when the
/// estimate changes, when asked (`ring`: the network came back), or when age will have widened the
/// estimate past `loose`.
public final class ServerClockKeeper: Service, Sendable {
    public struct Configuration: Sendable {
        /// Narrow enough: no probing below this.
        public var target = 0.005
        /// Probing starts again once the estimate is this loose (it widens with age).
        public var loose = 0.1
        /// Answers asked for in one go, at most.
        public var probes = 20
        public init() {}
    }

    private let backend: SupabaseBackend
    private let clock: ServerClock
    private let configuration: Configuration
    private let isOnline: @Sendable () -> Bool
    private let publish: @Sendable (ServerClockStatus?) -> Void
    private let logger: Logger
    /// Set by `ring`: probe again even if an earlier round left the estimate above `target`.
    private let asked = Mutex(false)

    public init(
        backend: SupabaseBackend, clock: ServerClock, configuration: Configuration = .init(), isOnline: @escaping @Sendable () -> Bool,
        publish: @escaping @Sendable (ServerClockStatus?) -> Void, logger: Logger
    ) {
        self.backend = backend
        self.clock = clock
        self.configuration = configuration
        self.isOnline = isOnline
        self.publish = publish
        self.logger = logger
    }

    /// How this device's clock stands now, as status shows it.
    public var currentStatus: ServerClockStatus? { clock.estimate.map(Self.status) }

    /// Something may let the clock be probed now (the backend answers again).
    public func ring() {
        asked.withLock { $0 = true }
        clock.changed.signal()
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.loop() }
    }

    private func loop() async {
        var farOffTold: Int?
        // Probing again is worth it at the start, when the backend answers again, and once age has made
        // the estimate loose; not at every answer (a round trip may keep it above `target` for good).
        var worthProbing = true
        while !Task.isCancelled {
            let seen = clock.changed.generation
            if asked.withLock({ asked in defer { asked = false }; return asked }) { worthProbing = true }
            let before = clock.estimate
            if before.map({ $0.uncertainty > configuration.loose }) ?? true { worthProbing = true }
            publish(before.map(Self.status))
            if worthProbing, before.map({ $0.uncertainty > configuration.target }) ?? true, isOnline() {
                await probe()
                worthProbing = false
            }
            let estimate = clock.estimate
            publish(estimate.map(Self.status))
            if let estimate { farOffTold = tellIfFarOff(estimate, told: farOffTold) }
            // Next: when age has widened the estimate past `loose`, or at the next answer or ring.
            let deadline = estimate.map { estimate -> ContinuousClock.Instant in
                let seconds = max(1, (configuration.loose - estimate.uncertainty) / ServerClock.drift)
                return .now + .seconds(min(seconds, 86_400))
            }
            await clock.changed.wait(beyond: seen, until: deadline ?? .now + .seconds(86_400))
        }
    }

    /// Asks the server at the moments that split the estimate in two, until it is narrow enough, four
    /// answers in a row no longer narrow it (the round trips are as wide as what is left), or `probes`
    /// answers came. An answer that came back slowly narrows it less; a later quick one makes up for it.
    private func probe() async {
        var roundTrip = 0.01
        var stalled = 0
        for _ in 0..<configuration.probes {
            guard !Task.isCancelled, isOnline(), stalled < 4 else { return }
            // No estimate yet: any answer makes the first.
            let estimate = clock.estimate ?? ServerClock.Estimate(offset: 0, uncertainty: .infinity, wallOffset: 0)
            guard estimate.uncertainty > configuration.target else { return }
            let boot = clock.device.boot()
            if estimate.uncertainty.isFinite {
                // The server should read its clock at a second's edge if the offset were the estimate's middle.
                let edge = (boot + 0.02 + roundTrip / 2 + estimate.offset).rounded(.up)
                let sendAt = edge - estimate.offset - roundTrip / 2
                if sendAt > boot { try? await Task.sleep(for: .seconds(sendAt - boot)) }
            }
            let sent = clock.device.boot()
            do {
                _ = try await backend.send("GET", "/auth/v1/settings", timeout: .seconds(5))
            } catch {
                if !error.isTransient || error.isNetwork { return }
            }
            roundTrip = min(max(0.0005, clock.device.boot() - sent), 0.25)
            let now = clock.estimate
            publish(now.map(Self.status))
            let narrowed = (now?.uncertainty ?? .infinity) < estimate.uncertainty * 0.9
            stalled = narrowed ? 0 : stalled + 1
        }
    }

    /// Tells the journal once when the device's clock is a minute or more off the server's (and again
    /// when that changes by another minute).
    private func tellIfFarOff(_ estimate: ServerClock.Estimate, told: Int?) -> Int? {
        guard Self.status(estimate).isFarOff else { return nil }
        let minutes = Int((estimate.wallOffset / 60).rounded(.towardZero))
        if told == minutes { return told }
        logger.warning(
            "this device's clock is \(Int(abs(estimate.wallOffset).rounded())) s \(estimate.wallOffset > 0 ? "behind" : "ahead of") the account server's; changes are ordered by the server's clock all the same",
            metadata: ["splashd_op": "clock", "splashd_clock_offset_s": "\(Self.rounded(estimate.wallOffset))"])
        return minutes
    }

    private static func status(_ estimate: ServerClock.Estimate) -> ServerClockStatus {
        ServerClockStatus(offsetSeconds: rounded(estimate.wallOffset), uncertaintySeconds: rounded(estimate.uncertainty))
    }

    private static func rounded(_ seconds: Double) -> Double {
        (seconds * 1000).rounded() / 1000
    }
}
