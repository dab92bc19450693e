#if canImport(Glibc)
import Glibc
#endif

/// Owns one file descriptor and closes it in deinit. Whoever polls it must hold a reference until it stops.
public final class FileDescriptor: Sendable {
    public let raw: Int32

    public init(_ raw: Int32) { self.raw = raw }

    deinit { _ = close(raw) }
}
