#if canImport(Glibc)
import Glibc
#endif
import Support

/// A timerfd on CLOCK_REALTIME armed years ahead with TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET. It never
/// expires in practice and costs no wake-ups; its read fails with ECANCELED when the wall clock is set
/// discontinuously — by settimeofday/NTP steps, and on resume from suspend, where the kernel moves the
/// realtime-to-monotonic offset by the time slept.
final class ClockChangeTimer: Sendable {
    let fd: FileDescriptor

    init() throws(SystemError) {
        guard let create = LinuxCalls.timerfdCreate else { throw SystemError("timerfd_create", errno: ENOSYS) }
        let raw = create(CLOCK_REALTIME, LinuxCalls.TFD_CLOEXEC | LinuxCalls.TFD_NONBLOCK)
        guard raw >= 0 else { throw SystemError("timerfd_create") }
        fd = FileDescriptor(raw)
        try arm()
    }

    /// (Re)arms the timer ten years from now; re-arming also clears the cancelled condition.
    func arm() throws(SystemError) {
        guard let settime = LinuxCalls.timerfdSettime else { throw SystemError("timerfd_settime", errno: ENOSYS) }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var spec = itimerspec()
        spec.it_value.tv_sec = now.tv_sec + 10 * 365 * 86_400
        let flags = LinuxCalls.TFD_TIMER_ABSTIME | LinuxCalls.TFD_TIMER_CANCEL_ON_SET
        guard settime(fd.raw, flags, &spec, nil) == 0 else { throw SystemError("timerfd_settime") }
    }

    /// Called when the fd polls readable. True if the wall clock was set; the timer is armed again either way.
    func consume() -> Bool {
        var expirations: UInt64 = 0
        let n = read(fd.raw, &expirations, MemoryLayout<UInt64>.size)
        let changed = n < 0 && errno == ECANCELED
        if changed || n > 0 { try? arm() }
        return changed
    }
}

/// Suspend shows as CLOCK_BOOTTIME advancing further than CLOCK_MONOTONIC (which stops while suspended). Checked
/// whenever the monitor wakes anyway; it needs no timer of its own. Pure: readings are passed in.
struct SuspendDetector: Sendable {
    /// Boottime minus monotonic at the last check.
    private var offset: Duration
    /// Smaller growth is noise (the two clocks are read one after the other).
    let threshold: Duration

    init(boottime: Duration, monotonic: Duration, threshold: Duration = .seconds(2)) {
        offset = boottime - monotonic
        self.threshold = threshold
    }

    /// Returns how long the machine slept since the last check if that exceeds the threshold, else nil.
    mutating func check(boottime: Duration, monotonic: Duration) -> Duration? {
        let now = boottime - monotonic
        let slept = now - offset
        offset = now
        return slept > threshold ? slept : nil
    }

    static func read(_ clock: clockid_t) -> Duration {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return .seconds(ts.tv_sec) + .nanoseconds(ts.tv_nsec)
    }

    init() { self.init(boottime: Self.read(CLOCK_BOOTTIME), monotonic: Self.read(CLOCK_MONOTONIC)) }

    mutating func check() -> Duration? { check(boottime: Self.read(CLOCK_BOOTTIME), monotonic: Self.read(CLOCK_MONOTONIC)) }
}
