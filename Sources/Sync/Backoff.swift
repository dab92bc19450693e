import Foundation

/// Retry delays for transient failures: 1 s doubling to 5 min, with jitter so that many daemons
/// recovering from the same outage do not come back in step; a server's Retry-After wins when longer.
public struct Backoff: Sendable, Equatable {
    public var initial: Double = 1
    public var maximum: Double = 300

    public init(initial: Double = 1, maximum: Double = 300) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The delay before attempt `attempts + 1`, `attempts` ≥ 1 having failed.
    public func delay(afterAttempts attempts: Int, retryAfter: Double? = nil, random: Double = Double.random(in: 0...1)) -> Double {
        let exponent = min(max(attempts - 1, 0), 30)
        let base = min(maximum, initial * pow(2, Double(exponent)))
        let jittered = base * (0.5 + 0.5 * random)  // in [base/2, base]
        return max(jittered, min(retryAfter ?? 0, 3600))
    }
}
