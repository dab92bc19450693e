#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One inotify instance (inotify(7)): owns its file descriptor, closed in deinit. Watches are added and
/// removed from any thread (the kernel serialises them); events are read when the descriptor is
/// readable, whole (the kernel never splits one).
final class InotifyHandle: Sendable {
    struct Event: Sendable, Equatable {
        var watch: Int32
        var mask: UInt32
        /// The entry's name inside the watched directory ("" for the directory itself).
        var name: String

        var isDirectory: Bool { mask & UInt32(IN_ISDIR) != 0 }
        var overflowed: Bool { mask & UInt32(IN_Q_OVERFLOW) != 0 }
    }

    /// What a watched directory reports: a file written and closed, or moved in; a directory made or
    /// moved in (to watch it too); the directory itself gone.
    static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

    let fd: Int32

    init() throws(InotifyError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw InotifyError(call: "inotify_init1", errno: errno) }
        self.fd = fd
    }

    deinit { _ = close(fd) }

    /// Watches the directory `path`; its watch descriptor.
    func add(_ path: String) throws(InotifyError) -> Int32 {
        let watch = inotify_add_watch(fd, path, Self.mask)
        guard watch >= 0 else { throw InotifyError(call: "inotify_add_watch \(path)", errno: errno) }
        return watch
    }

    func remove(_ watch: Int32) {
        _ = inotify_rm_watch(fd, watch)
    }

    /// Every event ready now (none when nothing is: the descriptor is non-blocking).
    func read() -> [Event] {
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            buffer.withUnsafeBytes { raw in
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let header = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let nameBytes = raw[nameStart..<min(nameStart + Int(header.len), count)].prefix { $0 != 0 }
                    events.append(Event(watch: header.wd, mask: header.mask, name: String(decoding: nameBytes, as: UTF8.self)))
                    offset = nameStart + Int(header.len)
                }
            }
        }
        return events
    }
}

/// An inotify call failed, with its errno (ENOSPC: the user's inotify watch limit is reached).
struct InotifyError: Error, CustomStringConvertible {
    let call: String
    let errno: Int32
    var description: String { "\(call): \(String(cString: strerror(errno)))" }
}
