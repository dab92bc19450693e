import Synchronization
import Support

/// logind's "delay" inhibitor of sleep: while splashd holds its descriptor, a suspend waits for it (up
/// to logind's `InhibitDelayMaxSec`), so the daemon can finish its writes and close its live channel
/// first. Taken when logind is there, let go once ready for sleep, taken again after the resume.
final class SleepInhibitor: Sendable {
    private let held = Mutex<FileDescriptor?>(nil)

    var isHeld: Bool { held.withLock { $0 != nil } }

    /// Asks logind for the inhibitor on the bus's thread; a failure is said and splashd goes on without one.
    func take(_ connection: DBusConnection) throws(DBusFailure) {
        let reply = try connection.call(
            destination: "org.freedesktop.login1", path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
            member: "Inhibit",
            arguments: [.string("sleep"), .string("splashd"), .string("finishing its writes and closing its live channel"), .string("delay")])
        let fd = try reply.readFileDescriptor()
        held.withLock { $0 = FileDescriptor(fd) }
    }

    /// Closes the descriptor: logind may go on with the suspend.
    func release() {
        held.withLock { $0 = nil }
    }
}
