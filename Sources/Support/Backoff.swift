/// The one retry policy: `minimum` doubling up to `maximum`, each delay shortened by a random fraction
/// of at most `jitter` so that many daemons coming back at once do not retry in lockstep. Re-probes of
/// the backend, pushes, image downloads, session refreshes and profile pushes all wait by it.
/// With the defaults: 1 s, 2 s, 4 s ... 256 s, 300 s, 300 s ... each one between 80 % and 100 % of that.
/// A delay never exceeds `maximum` and never falls below `minimum * (1 - jitter)`.
public struct Backoff: Sendable, Equatable {
    /// The retry policy for requests to a server (docs/architecture.md): 1 s doubling to 5 min.
    public static let requests = Backoff(minimum: .seconds(1), maximum: .seconds(300))


    public let minimum: Duration
    public let maximum: Duration
    /// Fraction in 0...1 by which a delay may be shortened.
    public let jitter: Double
    /// Delays handed out since the last reset.
    public private(set) var attempt: Int = 0

    public init(minimum: Duration, maximum: Duration, jitter: Double = 0.2) {
        self.minimum = max(minimum, .milliseconds(1))
        self.maximum = max(maximum, self.minimum)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The delay before the next attempt, without jitter.
    public var nominalDelay: Duration {
        var delay = minimum
        var doublings = 0
        while doublings < attempt && delay < maximum {
            delay *= 2
            doublings += 1
        }
        return min(delay, maximum)
    }

    /// The next delay (jittered) and advances the sequence.
    public mutating func next(using generator: inout some RandomNumberGenerator) -> Duration {
        next(sample: Double.random(in: 0...1, using: &generator))
    }

    /// The next delay for a given uniform sample in 0...1 (0: the full delay, 1: shortened by all of `jitter`).
    public mutating func next(sample: Double) -> Duration {
        let nominal = nominalDelay
        attempt += 1
        guard jitter > 0 else { return nominal }
        return nominal * (1 - jitter * min(max(sample, 0), 1))
    }

    public mutating func next() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return next(using: &generator)
    }

    public mutating func reset() { attempt = 0 }

    /// The delay after `failures` consecutive failures (≥ 1), for callers that keep the count
    /// themselves (the outbox keeps it per op); a server's Retry-After wins when longer (capped at an hour).
    public func delay(afterFailures failures: Int, retryAfter: Duration? = nil, sample: Double = Double.random(in: 0...1)) -> Duration {
        var sequence = self
        sequence.attempt = max(failures - 1, 0)
        let delay = sequence.next(sample: sample)
        guard let retryAfter else { return delay }
        return max(delay, min(retryAfter, .seconds(3600)))
    }
}
