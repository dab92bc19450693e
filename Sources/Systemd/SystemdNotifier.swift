import CSystemd
import Foundation

/// Talks to the service manager through `$NOTIFY_SOCKET` (sd_notify). Without a manager every call
/// is a no-op, so the daemon behaves the same in a terminal.
public struct SystemdNotifier: Sendable {
    public init() {}

    /// Whether a service manager is listening (NOTIFY_SOCKET set).
    public var isSupervised: Bool { ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] != nil }

    public func ready(status: String) { send("READY=1\nSTATUS=\(Self.oneLine(status))") }
    public func status(_ status: String) { send("STATUS=\(Self.oneLine(status))") }
    public func watchdog() { send("WATCHDOG=1") }
    public func stopping() { send("STOPPING=1\nSTATUS=stopping") }

    /// RELOADING=1 must carry MONOTONIC_USEC (systemd ≥ 253 uses it to match the reload with READY=1).
    public func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let usec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        send("RELOADING=1\nMONOTONIC_USEC=\(usec)\nSTATUS=reloading configuration")
    }

    /// `sd_notify(0, …)`: the environment is kept so that later notifications still find the socket.
    public func send(_ message: String) {
        _ = sd_notify(0, message)
    }

    /// STATUS= must be a single line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// The interval at which WATCHDOG=1 must arrive, if the manager asked for one (WatchdogSec=).
    public static func watchdogInterval() -> Duration? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(usec))
    }

    /// One socket passed by socket activation, with the name its unit gave it (FileDescriptorName=,
    /// by default the socket unit's name).
    public struct ListenedSocket: Sendable, Equatable {
        public var fd: Int32
        public var name: String
    }

    /// The sockets passed by socket activation (LISTEN_FDS, LISTEN_PID, LISTEN_FDNAMES), in order. The
    /// variables are unset so that children never see them.
    public static func listenedSockets() -> [ListenedSocket] {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_listen_fds_with_names(1, &names)
        guard count >= 1 else { return [] }
        defer {
            for index in 0..<Int(count) { free(names?[index]) }
            free(names)
        }
        return (0..<count).map { index in
            ListenedSocket(fd: SD_LISTEN_FDS_START + index, name: names?[Int(index)].map { String(cString: $0) } ?? "")
        }
    }

    /// The name `splashd-web.socket` gives the gallery's sockets; every other one is the control socket.
    public static let gallerySocketName = "web"
}
