#if canImport(Glibc)
import Glibc
#endif

/// A system call on a file failed: what was being done, to which path, and the errno it left. Every
/// module that writes files durably reports through this and maps it into its own error once.
public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Operation: String, Sendable {
        case read, write, create, rename, remove, sync
    }

    public let operation: Operation
    public let path: String
    public let errno: Int32

    public init(_ operation: Operation, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// The disk or the quota is full: worth its own message ("free some space").
    public var isNoSpace: Bool { errno == ENOSPC || errno == EDQUOT }

    public var reason: String { String(cString: strerror(errno)) }

    public var description: String { "cannot \(operation.rawValue) \(path): \(reason)" }
}
