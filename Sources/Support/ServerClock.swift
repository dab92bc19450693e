import Foundation
import Synchronization

/// The server's clock as this device knows it, learnt from the `Date` of the server's answers.
///
/// An answer whose `Date` says second D was made while the server's clock read [D, D + 1), at some
/// moment between sending the request (boot clock t0) and reading the answer (t1); so the offset from
/// the boot clock to the server's lies in [D − t1, D + 1 − t0]. Each answer is such a bound; their
/// intersection is the estimate, and its half width the uncertainty — answers that fall at different
/// points of a second narrow it far below one second (`ServerClockKeeper` asks at the points that
/// halve it). Bounds widen with age at `drift` (a boot clock may run fast or slow), and when the newest
/// answers no longer meet the older ones (the server's clock was stepped, or a restored estimate was
/// wrong) the older ones go.
///
/// What it learns is handed to `persist` at once, before the answer that taught it is read: a session
/// saved after its sign-in's answer is never without the clock that answer set, however soon the
/// process dies. It is handed on again when it narrows by half or no longer meets what was handed on.
///
/// The boot clock is never stepped, so a wall clock that is wrong, or corrected while splashd runs,
/// changes nothing here; the wall clock's own offset is reported (`wallOffset`) so that a person whose
/// clock is far off is told.
public final class ServerClock: Sendable {
    /// A bound on the offset (server time − boot clock), taken at boot clock `at`.
    public struct Bound: Sendable, Equatable, Codable {
        public var low: Double
        public var high: Double
        public var at: Double

        public init(low: Double, high: Double, at: Double) {
            self.low = low
            self.high = high
            self.at = at
        }
    }

    /// What the clock knows now.
    public struct Estimate: Sendable, Equatable {
        /// Server time − boot clock, seconds.
        public var offset: Double
        /// How far the true offset may be from `offset`, either way.
        public var uncertainty: Double
        /// Server time − this device's wall clock, seconds (positive: the device is behind).
        public var wallOffset: Double

        public init(offset: Double, uncertainty: Double, wallOffset: Double) {
            self.offset = offset
            self.uncertainty = uncertainty
            self.wallOffset = wallOffset
        }
    }

    /// What survives a restart: the estimate as a bound on this boot's clock, and as an offset from the
    /// wall clock for the next boot.
    public struct Saved: Sendable, Equatable, Codable {
        public var bootId: String
        public var bound: Bound
        public var wallOffset: Double

        public init(bootId: String, bound: Bound, wallOffset: Double) {
            self.bootId = bootId
            self.bound = bound
            self.wallOffset = wallOffset
        }
    }

    /// How fast a boot clock may drift from the server's (NTP's assumed 15 ppm).
    public static let drift = 15e-6
    /// The answers kept.
    public static let window = 64
    /// How far past the server's now an action may be stamped before it is taken as a clock gone wrong
    /// and sent as now (the server's trigger clamps at the same bound).
    public static let futureBound = 2.0

    public let device: DeviceClock
    private let bounds = Mutex<[Bound]>([])
    /// Moves when an answer changes the estimate (the probe and the keeper wait on it).
    public let changed = ChangeSignal()
    private let persist: @Sendable (Saved) -> Void
    /// What `persist` was last handed; held while handing on, so that what is kept never goes back.
    private let persisted = Mutex<Saved?>(nil)
    /// The last time `now` gave: it never gives an earlier one.
    private let lastNow = Mutex(-Double.infinity)

    /// `persist` keeps an estimate for the next start (`restore`); called on the thread of the answer.
    public init(device: DeviceClock, persist: @escaping @Sendable (Saved) -> Void = { _ in }) {
        self.device = device
        self.persist = persist
    }

    /// An answer: `serverSecond` from its `Date`, sent at boot clock `sentAt`, read at `receivedAt`.
    public func observe(serverSecond: Int64, sentAt: Double, receivedAt: Double) {
        guard receivedAt >= sentAt else { return }
        add(Bound(low: Double(serverSecond) - receivedAt, high: Double(serverSecond) + 1 - sentAt, at: receivedAt))
        persistIfLearnt()
    }

    /// Starts from what an earlier run knew: as it was on this boot; from another boot, through the
    /// wall clock, a second wider either way (the wall clock may have been set since). Any answer that
    /// disagrees replaces it.
    public func restore(_ saved: Saved) {
        if saved.bootId == device.bootId {
            add(saved.bound)
            persisted.withLock { $0 = saved }
        } else {
            let boot = device.boot()
            let offset = saved.wallOffset + device.wall().timeIntervalSince1970 - boot
            let half = (saved.bound.high - saved.bound.low) / 2 + 1
            add(Bound(low: offset - half, high: offset + half, at: boot))
        }
    }

    /// Hands the estimate to `persist` when nothing was, when it is half as wide as what was, or when it
    /// no longer meets what was (the server's clock moved, or what was kept was wrong).
    private func persistIfLearnt() {
        persisted.withLock { persisted in
            guard let saved else { return }
            if let kept = persisted {
                let spread = max(0, saved.bound.at - kept.bound.at) * Self.drift
                let apart = saved.bound.high < kept.bound.low - spread || saved.bound.low > kept.bound.high + spread
                let narrowed = saved.bound.high - saved.bound.low <= (kept.bound.high - kept.bound.low) / 2
                guard apart || narrowed else { return }
            }
            persist(saved)
            persisted = saved
        }
    }

    private func add(_ bound: Bound) {
        bounds.withLock { bounds in
            bounds.append(bound)
            if bounds.count > Self.window { bounds.removeFirst(bounds.count - Self.window) }
            // Keep the longest run of newest answers that still agree.
            let now = bound.at
            var low = -Double.infinity
            var high = Double.infinity
            var keep = 0
            for candidate in bounds.reversed() {
                let widened = Self.widen(candidate, to: now)
                let (l, h) = (max(low, widened.low), min(high, widened.high))
                if l > h { break }
                (low, high) = (l, h)
                keep += 1
            }
            if keep < bounds.count { bounds.removeFirst(bounds.count - keep) }
        }
        changed.signal()
    }

    private static func widen(_ bound: Bound, to now: Double) -> (low: Double, high: Double) {
        let spread = max(0, now - bound.at) * drift
        return (bound.low - spread, bound.high + spread)
    }

    /// The estimate now; nil before any answer.
    public var estimate: Estimate? {
        let boot = device.boot()
        let wall = device.wall().timeIntervalSince1970
        return bounds.withLock { bounds -> Estimate? in
            guard !bounds.isEmpty else { return nil }
            var low = -Double.infinity
            var high = Double.infinity
            for bound in bounds {
                let widened = Self.widen(bound, to: boot)
                low = max(low, widened.low)
                high = min(high, widened.high)
            }
            let offset = (low + high) / 2
            return Estimate(offset: offset, uncertainty: (high - low) / 2, wallOffset: offset + boot - wall)
        }
    }

    /// The server's time now, as well as it is known; the wall clock before any answer came.
    ///
    /// Where the wall clock lies within what the answers allow, it is taken: a clock kept by NTP is
    /// right to a few milliseconds, where the middle of what a second's `Date` allows may be half a
    /// second off for a while after a start, and an action stamped then could lose to an earlier one
    /// made on another device (two daemons on one machine did, 5 runs in 6). Outside it, the wall
    /// clock is wrong and the middle is taken. Never earlier than a time it gave before: a wall clock
    /// set back within the bounds must not put a person's later action before their earlier one.
    public func now() -> Date {
        guard let estimate else { return device.wall() }
        let boot = device.boot()
        let wall = device.wall().timeIntervalSince1970
        let offset = abs(wall - boot - estimate.offset) <= estimate.uncertainty ? wall - boot : estimate.offset
        let seconds = lastNow.withLock { last in
            last = max(last, boot + offset)
            return last
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// The latest moment the server takes as an action's (its now and the skew it allows, `futureBound`);
    /// nil before any answer came: this device does not know it, and the server bounds the moment itself.
    public func latestAccepted() -> Date? {
        guard let estimate else { return nil }
        return Date(timeIntervalSince1970: device.boot() + estimate.offset + Self.futureBound)
    }

    /// The estimate as it should survive a restart; nil before any answer.
    public var saved: Saved? {
        guard let estimate else { return nil }
        let at = device.boot()
        return Saved(
            bootId: device.bootId,
            bound: Bound(low: estimate.offset - estimate.uncertainty, high: estimate.offset + estimate.uncertainty, at: at),
            wallOffset: estimate.wallOffset)
    }
}
