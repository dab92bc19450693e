extension Duration {
    /// Whole milliseconds, from one reading of the clock: every log line that reports a duration
    /// (`SPLASHD_DURATION_MS`) uses this, so none mixes the seconds of one reading with the fraction
    /// of another.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

extension ContinuousClock.Instant {
    /// Milliseconds from this instant to now.
    public var millisecondsElapsed: Int64 {
        (ContinuousClock.now - self).wholeMilliseconds
    }
}

extension Duration {
    /// Seconds as a `Double`, for `Date` arithmetic and `TimeInterval` APIs.
    public var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
