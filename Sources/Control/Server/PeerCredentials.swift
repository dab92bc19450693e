#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// Who is on the other end of a Unix socket, from the kernel (SO_PEERCRED), not from anything the
/// client says.
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// The daemon's own uid and root may talk to it; nobody else.
    public func isAllowed(daemonUID: UInt32) -> Bool {
        uid == daemonUID || uid == 0
    }

    public var description: String { "pid \(pid) uid \(uid)" }

    static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        let future: EventLoopFuture<KernelUCred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return future.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
    }
}

/// Linux's `struct ucred` (pid_t, uid_t, gid_t), which Glibc hides behind _GNU_SOURCE; same layout.
struct KernelUCred: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
