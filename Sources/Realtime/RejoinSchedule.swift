/// How long a channel waits before joining again after `phx_error` or `phx_close`: 1, 2, 5, then
/// every 10 s, the steps of Supabase's own clients (supabase-js, realtime-py). `joined()` starts the steps
/// over; the conversation calls it only for a channel that held (a server that closes every channel
/// at once is rejoined on the steps, not every second).
public struct RejoinSchedule: Sendable, Equatable {
    public static let steps: [Duration] = [.seconds(1), .seconds(2), .seconds(5), .seconds(10)]

    public private(set) var failures = 0

    public init() {}

    /// The wait before the next join, counting this failure.
    public mutating func failed() -> Duration {
        failures += 1
        return Self.steps[min(failures, Self.steps.count) - 1]
    }

    public mutating func joined() {
        failures = 0
    }
}
