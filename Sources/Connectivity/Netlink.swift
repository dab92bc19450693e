#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Support
import Synchronization

/// rtnetlink constants and layouts from <linux/netlink.h> and <linux/rtnetlink.h>, which Glibc does not import.
enum RTNetlink {
    static let NETLINK_ROUTE: Int32 = 0
    static let RTMGRP_LINK: UInt32 = 0x1
    static let RTMGRP_IPV4_IFADDR: UInt32 = 0x10
    static let RTMGRP_IPV4_ROUTE: UInt32 = 0x40
    static let RTMGRP_IPV6_IFADDR: UInt32 = 0x100
    static let RTMGRP_IPV6_ROUTE: UInt32 = 0x400
    static let groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE

    /// struct sockaddr_nl.
    struct Address {
        var family: UInt16 = UInt16(AF_NETLINK)
        var pad: UInt16 = 0
        var pid: UInt32 = 0
        var groups: UInt32 = 0
    }

    /// A message type's name, for the log.
    static func name(of type: UInt16) -> String {
        switch type {
        case 16: "newlink"
        case 17: "dellink"
        case 20: "newaddr"
        case 21: "deladdr"
        case 24: "newroute"
        case 25: "delroute"
        case 2: "error"
        case 3: "done"
        default: "type \(type)"
        }
    }

    /// A socket subscribed to link, address and route changes (IPv4 and IPv6). With `namespace` (a path such as
    /// /run/netns/NAME) the socket is opened in that network namespace: from a short-lived thread that joins it,
    /// since setns changes only the calling thread and a socket stays in the namespace it was created in. Tests use
    /// this to watch a namespace of their own, undisturbed by anything else on the machine.
    static func subscribe(namespace: String? = nil) throws(SystemError) -> FileDescriptor {
        guard let namespace else { return try openSocket() }
        let result = Mutex<Result<FileDescriptor, SystemError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            result.withLock { $0 = Result { () throws(SystemError) -> FileDescriptor in
                let nsFD = open(namespace, O_RDONLY | O_CLOEXEC)
                guard nsFD >= 0 else { throw SystemError("open \(namespace)") }
                defer { close(nsFD) }
                guard let setns = LinuxCalls.setns else { throw SystemError("setns", errno: ENOSYS) }
                guard setns(nsFD, LinuxCalls.CLONE_NEWNET) == 0 else { throw SystemError("setns") }
                return try openSocket()
            } }
            done.signal()
        }
        thread.start()
        done.wait()
        return try result.withLock { $0! }.get()
    }

    private static func openSocket() throws(SystemError) -> FileDescriptor {
        let raw = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), NETLINK_ROUTE)
        guard raw >= 0 else { throw SystemError("socket(AF_NETLINK)") }
        let fd = FileDescriptor(raw)
        // A bigger receive buffer makes overruns (ENOBUFS) during a burst less likely; an overrun still counts as
        // a change, so this is a nicety.
        var size: Int32 = 256 * 1024
        _ = setsockopt(raw, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = Address(groups: groups)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(raw, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
        guard bound == 0 else { throw SystemError("bind(netlink)") }
        return fd
    }
}
