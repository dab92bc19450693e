#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Support
import Synchronization

/// The monitor's own event source: one dedicated thread blocking in poll(2) on the netlink socket, the wall-clock
/// timerfd and a stop pipe, with no timeout — it wakes only when the kernel has something to say. Never runs on
/// Swift's cooperative pool. Events go to `handler` on that thread.
final class EventSource: Sendable {
    enum Event: Sendable, Equatable {
        /// One or more rtnetlink messages (their type names, for the log); "overrun" if the socket overflowed.
        case network([String])
        /// The wall clock was set (or the machine resumed from suspend).
        case clockChanged
    }

    private let stopWrite: FileDescriptor
    private let stopped = Mutex(false)
    private let exited = DispatchSemaphore(value: 0)

    init(netlink: FileDescriptor?, clock: ClockChangeTimer?, logger: Logger, handler: @escaping @Sendable (Event) -> Void) throws(SystemError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SystemError("pipe") }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let stopRead = FileDescriptor(ends[0])
        stopWrite = FileDescriptor(ends[1])
        let exited = exited
        let thread = Thread {
            Self.loop(stop: stopRead, netlink: netlink, clock: clock, logger: logger, handler: handler)
            exited.signal()
        }
        thread.name = "splashd-connectivity"
        thread.start()
    }

    /// Wakes the thread and waits until it has returned (it does nothing slow). Idempotent.
    func stop() {
        let first = stopped.withLock { stopped in defer { stopped = true }; return !stopped }
        guard first else { return }
        var byte: UInt8 = 0
        _ = write(stopWrite.raw, &byte, 1)
        exited.wait()
    }

    deinit { stop() }

    private static func loop(
        stop: FileDescriptor, netlink: FileDescriptor?, clock: ClockChangeTimer?, logger: Logger,
        handler: @Sendable (Event) -> Void
    ) {
        var fds = [pollfd(fd: stop.raw, events: Int16(POLLIN), revents: 0)]
        if let netlink { fds.append(pollfd(fd: netlink.raw, events: Int16(POLLIN), revents: 0)) }
        if let clock { fds.append(pollfd(fd: clock.fd.raw, events: Int16(POLLIN), revents: 0)) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var filter = NetlinkFilter()
        while true {
            for i in fds.indices { fds[i].revents = 0 }
            let n = poll(&fds, nfds_t(fds.count), -1)
            if n < 0 {
                if errno == EINTR { continue }
                logger.error("connectivity event source stops: \(SystemError("poll"))")
                return
            }
            if fds[0].revents != 0 { return }
            for entry in fds.dropFirst() where entry.revents != 0 {
                if entry.revents & Int16(POLLNVAL) != 0 {
                    logger.error("connectivity event source stops: fd \(entry.fd) is not open")
                    return
                }
                if let netlink, entry.fd == netlink.raw {
                    let types = drain(netlink, into: &buffer, filter: &filter)
                    if !types.isEmpty { handler(.network(types)) }
                } else if let clock, entry.fd == clock.fd.raw {
                    if clock.consume() { handler(.clockChanged) }
                }
            }
        }
    }

    /// Reads every queued datagram without blocking; returns the names of the messages that are changes (see
    /// `NetlinkFilter`). An overrun (ENOBUFS: messages were dropped) is a change too.
    private static func drain(_ netlink: FileDescriptor, into buffer: inout [UInt8], filter: inout NetlinkFilter) -> [String] {
        var types: [String] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(netlink.raw, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                types += buffer.withUnsafeBytes { filter.changes(in: UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && errno == ENOBUFS {
                filter.overrun()
                types.append("overrun")
            } else {
                return types  // EAGAIN: drained
            }
        }
    }
}
