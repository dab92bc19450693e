import Support
import Testing

@Suite struct BackoffTests {
    @Test func doublesFromOneSecondAndCapsAtFiveMinutes() {
        var backoff = Backoff(minimum: .seconds(1), maximum: .seconds(300), jitter: 0)
        let delays = (0..<12).map { _ in backoff.next() }
        #expect(delays == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300].map { Duration.seconds($0) })
    }

    @Test func jitterStaysWithinBounds() {
        var backoff = Backoff(minimum: .seconds(1), maximum: .seconds(300))
        var generator = SystemRandomNumberGenerator()
        for attempt in 0..<40 {
            let nominal = backoff.nominalDelay
            let delay = backoff.next(using: &generator)
            #expect(delay <= nominal, "attempt \(attempt)")
            #expect(delay >= nominal * 0.8, "attempt \(attempt)")
            #expect(delay <= .seconds(300))
        }
    }

    @Test func jitterExtremes() {
        var a = Backoff(minimum: .seconds(10), maximum: .seconds(300), jitter: 0.2)
        var b = a
        #expect(a.next(sample: 0) == .seconds(10))  // the full delay
        #expect(b.next(sample: 1) == .seconds(8))  // shortened by the whole 20 %
        #expect(a.next(sample: 1) == .seconds(16))
    }

    @Test func jitterActuallyVaries() {
        var generator = SystemRandomNumberGenerator()
        let delays = Set((0..<20).map { _ in
            var backoff = Backoff(minimum: .seconds(1), maximum: .seconds(300))
            return backoff.next(using: &generator)
        })
        #expect(delays.count > 1)
    }

    @Test func resetStartsOver() {
        var backoff = Backoff(minimum: .seconds(1), maximum: .seconds(300), jitter: 0)
        for _ in 0..<5 { _ = backoff.next() }
        #expect(backoff.nominalDelay == .seconds(32))
        backoff.reset()
        #expect(backoff.next() == .seconds(1))
        #expect(backoff.next() == .seconds(2))
    }
}

@Suite struct RequestBackoffTests {
    /// The daemon's policy for requests (docs/account.md, docs/images.md): 1 s doubling to 5 min; a longer Retry-After wins, capped at an hour.
    @Test func oneSecondDoublingToFiveMinutesAndRetryAfterWins() {
        let policy = Backoff.requests
        #expect(policy.delay(afterFailures: 1, sample: 0) == .seconds(1))
        #expect(policy.delay(afterFailures: 4, sample: 0) == .seconds(8))
        #expect(policy.delay(afterFailures: 30, sample: 0) == .seconds(300))
        #expect(policy.delay(afterFailures: 1, retryAfter: .seconds(42), sample: 0) == .seconds(42))
        #expect(policy.delay(afterFailures: 9, retryAfter: .seconds(2), sample: 0) == .seconds(256))
        #expect(policy.delay(afterFailures: 1, retryAfter: .seconds(86_400), sample: 0) == .seconds(3600))
    }
}
