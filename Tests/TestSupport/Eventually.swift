import Shared
import SplashClient

/// Reads `value` until `done` holds for it, at most `tries` times, `interval` apart, and returns the
/// last value read: the test then expects on it, so a failure shows what was there when it gave up.
/// For state that settles a moment after the event a test waits on (a counter after its event, a
/// connection closed after its client went). Bounded by tries rather than wall-clock time, so a busy
/// machine waits longer instead of failing sooner.
public func eventually<T>(
    tries: Int = 100, every interval: Duration = .milliseconds(50), _ value: () async throws -> T, until done: (T) -> Bool
) async rethrows -> T {
    var current = try await value()
    var tried = 1
    while !done(current), tried < tries {
        try? await Task.sleep(for: interval)
        current = try await value()
        tried += 1
    }
    return current
}

/// Whether `condition` comes to hold, read every `interval`, at most `timeout / interval` times (the
/// same bound by tries as above, for a yes-or-no condition).
public func eventually(
    within timeout: Duration = .seconds(5), every interval: Duration = .milliseconds(10), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    try await eventually(tries: max(1, Int(timeout / interval)), every: interval, condition, until: { $0 })
}

extension SplashClient {
    /// The first event `match` accepts, or nil if none came within `seconds` (then the connection is
    /// closed: a read does not see cancellation, and closing is what ends it).
    public func firstEvent<T: Sendable>(within seconds: Int = 10, _ match: @escaping @Sendable (Event) -> T?) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                while let event = try? await self.nextEvent() {
                    if let matched = match(event.event) { return matched }
                }
                return nil
            }
            group.addTask {
                guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return nil }
                await self.close()
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
