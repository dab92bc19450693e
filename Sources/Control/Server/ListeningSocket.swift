#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Where the control socket comes from: a descriptor systemd passed (socket activation), or a path
/// the daemon binds itself.
public enum ListeningSocket: Sendable, Equatable {
    case inherited(fd: Int32)
    case path(String)
}

public enum ListeningSocketError: Error, CustomStringConvertible, Equatable {
    case inUse(String)
    case notASocket(String)
    case directory(String, String)

    public var description: String {
        switch self {
        case .inUse(let path): "another splashd is already listening on \(path)"
        case .notASocket(let path): "\(path) exists and is not a socket; refusing to replace it"
        case .directory(let path, let reason): "cannot prepare the socket directory \(path): \(reason)"
        }
    }
}

enum SocketPathPreparation {
    /// Makes the socket's directory (0700) and clears the way for `bind`: a socket that still answers
    /// belongs to a running daemon and is left alone; a stale one (nobody listening) is removed.
    static func prepare(_ path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try ensurePrivateDirectory(directory)
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw ListeningSocketError.notASocket(path) }
        if answers(path) { throw ListeningSocketError.inUse(path) }
        unlink(path)
    }

    /// Creates `directory` (and parents) with mode 0700. An existing directory we own is tightened to
    /// 0700; one owned by someone else is refused.
    static func ensurePrivateDirectory(_ directory: String) throws {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ListeningSocketError.directory(directory, "\(error.localizedDescription)")
        }
        var info = stat()
        guard stat(directory, &info) == 0 else { throw ListeningSocketError.directory(directory, String(cString: strerror(errno))) }
        guard info.st_uid == getuid() else {
            throw ListeningSocketError.directory(directory, "owned by uid \(info.st_uid), not by us (uid \(getuid()))")
        }
        if info.st_mode & 0o777 != 0o700 { chmod(directory, 0o700) }
    }

    static func answers(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }
}
