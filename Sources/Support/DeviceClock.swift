#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// This machine's two clocks as splashd reads them. `wall` is the date the device believes (it may be
/// minutes or a year off, and it may be stepped at any moment); `boot` counts seconds since boot,
/// suspend included, and is never stepped (CLOCK_BOOTTIME). The server's time is estimated against
/// `boot`, so a wall clock that is off or jumps does not move it.
public struct DeviceClock: Sendable {
    public var wall: @Sendable () -> Date
    public var boot: @Sendable () -> Double
    /// Identifies this boot: a `boot` reading means nothing in another one.
    public var bootId: String

    public init(wall: @escaping @Sendable () -> Date, boot: @escaping @Sendable () -> Double, bootId: String) {
        self.wall = wall
        self.boot = boot
        self.bootId = bootId
    }

    /// The machine's clocks. Test-only: `SPLASHD_TEST_CLOCK_SKEW_SECONDS` sets the wall clock that far
    /// off (negative: behind), as on a device whose clock is wrong.
    public static func system(environment: [String: String] = ProcessInfo.processInfo.environment) -> DeviceClock {
        let skew = environment["SPLASHD_TEST_CLOCK_SKEW_SECONDS"].flatMap(Double.init) ?? 0
        return DeviceClock(
            wall: { Date().addingTimeInterval(skew) },
            boot: {
                var now = timespec()
                clock_gettime(CLOCK_BOOTTIME, &now)
                return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
            },
            bootId: (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
    }
}
