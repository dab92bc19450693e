import CCurl
import Support
#if canImport(Glibc)
import Glibc
#endif

/// Where a download's body goes: `<dest>.part`, opened without truncation so that an earlier attempt's bytes
/// can be resumed. Whether to keep them is decided once the final status is known (`begin`): 206 appends at
/// the resume offset, any other 2xx starts the file over. Bodies of other statuses (errors, redirects) are
/// kept in memory, bounded, for the error report, and never touch the file.
///
/// Each write to the file ends on a block's edge: libcurl hands the body over as the socket had it (a
/// few KiB, any length), and a write that ends inside a block the file did not have yet makes the
/// kernel zero the rest of that block first — a tenth of the daemon's CPU in a pull (perf). The bytes
/// past the last edge (less than a block) wait for the next piece, which goes out with them in one
/// `pwritev`; they reach the file when the transfer ends, on every path, so a `.part` left by a failure
/// keeps every byte that arrived, and a stalled transfer holds at most a block in memory.
///
/// The body is hashed (SHA-256) as it arrives, while its bytes are still in the CPU's cache: a finished
/// file is not read back to be verified or recorded. A resumed file's earlier bytes
/// are read back once, when the server agrees to resume it.
/// Used only on the engine thread while the transfer runs.
final class FileSink {
    let path: String
    let resumeFrom: Int64
    private var fd: Int32
    private let progress: (@Sendable (Int64, Int64?) -> Void)?
    private let expectedSize: Int64?
    /// The largest file accepted; past it the transfer is aborted with `.tooLarge`.
    private let maxBytes: Int64?

    private(set) var accepting = false
    /// Size of the body so far (resumed bytes included): the file's, once the buffer is written out.
    private(set) var written: Int64 = 0
    /// Body bytes not yet in the file (fewer than a block); they belong at `written - pendingCount`.
    /// Allocated last in `init`, after everything that can throw: `deinit` frees it.
    private let pending: UnsafeMutableRawBufferPointer
    private var pendingCount = 0
    static let blockBytes = 4096
    private(set) var total: Int64?
    private(set) var errorBody: [UInt8] = []
    static let maxErrorBody = 64 << 10
    /// The file's bytes so far, from its first: made at `begin`, when the server says where the body starts.
    private var hasher: SHA256?
    /// The file's SHA-256, once it is closed whole (`syncAndClose`, `startWritebackAndClose`).
    private(set) var sha256: [UInt8]?

    init(path: String, resumeFrom: Int64, expectedSize: Int64?, maxBytes: Int64? = nil, progress: (@Sendable (Int64, Int64?) -> Void)?) throws(HTTPError) {
        // Read and write: a resumed file's earlier bytes are read back for the hash.
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .file(errno: errno, path: path) }
        // Two downloads into the same .part would interleave their bytes; the second one fails instead.
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            close(fd)
            throw .file(errno: error, path: path)
        }
        self.path = path
        self.resumeFrom = resumeFrom
        self.expectedSize = expectedSize
        self.maxBytes = maxBytes
        self.progress = progress
        pending = .allocate(byteCount: Self.blockBytes, alignment: 16)
    }

    deinit {
        if fd >= 0 {
            _ = flush()
            close(fd)
        }
        pending.deallocate()
    }

    /// Called once the headers of the final response are in. Returns an error to abort the transfer.
    func begin(status: Int, headers: HTTPHeaders) -> HTTPError? {
        pendingCount = 0
        switch status {
        case 206 where resumeFrom > 0:
            // Only append if the server starts exactly where our file ends; anything else would corrupt it.
            guard let range = Self.parseContentRange(headers["content-range"]), range.start == resumeFrom else {
                // A server that answers a different range than asked cannot be resumed against: drop our bytes
                // so the next attempt starts over instead of failing the same way forever.
                _ = ftruncate(fd, 0)
                return .network(curlCode: Int32(CURLE_RANGE_ERROR.rawValue), message: "unexpected Content-Range in 206 response")
            }
            written = resumeFrom
            total = range.total ?? expectedSize
            let hasher = SHA256()
            do {
                try hasher.update(reading: fd, path: path, limit: resumeFrom)
            } catch {
                return .file(errno: error.errno, path: path)
            }
            self.hasher = hasher
        case 200..<300 where status != 206:
            // The server ignored our Range (or there was none): restart the file from zero.
            guard ftruncate(fd, 0) == 0 else { return .file(errno: errno, path: path) }
            written = 0
            total = headers["content-length"].flatMap { Int64($0) } ?? expectedSize
            hasher = SHA256()
        default:
            return nil
        }
        if let maxBytes, let total, total > maxBytes { return .tooLarge(limit: Int(maxBytes)) }
        accepting = true
        progress?(written, total)
        return nil
    }

    /// Appends body bytes; returns an error to abort the transfer.
    func write(_ bytes: UnsafeRawBufferPointer) -> HTTPError? {
        guard accepting else {
            errorBody.append(contentsOf: bytes.prefix(max(0, Self.maxErrorBody - errorBody.count)))
            return nil
        }
        if let maxBytes, written + Int64(bytes.count) > maxBytes { return .tooLarge(limit: Int(maxBytes)) }
        hasher?.update(bytes)
        let start = written - Int64(pendingCount)
        let end = written + Int64(bytes.count)
        let edge = end - end % Int64(Self.blockBytes)
        // The held bytes never cross an edge, so an edge past `start` is never before `written`.
        var kept = bytes[...]
        if edge > start {
            let fromNew = Int(edge - written)
            if let error = writeAll(
                UnsafeRawBufferPointer(rebasing: pending[..<pendingCount]), UnsafeRawBufferPointer(rebasing: bytes[..<fromNew]), at: start) {
                return error
            }
            pendingCount = 0
            kept = bytes[fromNew...]
        }
        UnsafeMutableRawBufferPointer(rebasing: pending[pendingCount...]).copyMemory(from: UnsafeRawBufferPointer(rebasing: kept))
        pendingCount += kept.count
        written = end
        progress?(written, total)
        return nil
    }

    /// Writes what waits for the block's end to the file.
    private func flush() -> HTTPError? {
        guard pendingCount > 0 else { return nil }
        if let error = writeAll(UnsafeRawBufferPointer(rebasing: pending[..<pendingCount]), at: written - Int64(pendingCount)) {
            return error
        }
        pendingCount = 0
        return nil
    }

    /// `first` then `second` from `offset`, in one `pwritev` unless a write comes back short.
    private func writeAll(
        _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
        at offset: Int64
    ) -> HTTPError? {
        var first = first, second = second, offset = offset
        while first.count + second.count > 0 {
            let n = withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { vectors in
                vectors[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count)
                vectors[1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count)
                return pwritev(fd, vectors.baseAddress, 2, off_t(offset))
            }
            if n < 0 {
                if errno == EINTR { continue }
                return .file(errno: errno, path: path)
            }
            // A regular file takes at least a byte or says why not; nothing at all would loop forever.
            guard n > 0 else { return .file(errno: EIO, path: path) }
            let fromFirst = min(n, first.count)
            first = UnsafeRawBufferPointer(rebasing: first[fromFirst...])
            second = UnsafeRawBufferPointer(rebasing: second[(n - fromFirst)...])
            offset += Int64(n)
        }
        return nil
    }

    /// Lets go of the file and its lock now. The transfer that wrote it may outlive the request by a
    /// moment on the engine thread; the next redirect hop opens the same `.part` and must get the lock.
    func release() {
        if fd >= 0 {
            _ = flush()
            close(fd)
        }
        fd = -1
    }

    /// Flushes the file to disk before it is renamed into place, so a crash never leaves a short final file.
    func syncAndClose() throws(HTTPError) {
        defer { close(fd); fd = -1 }
        if let error = flush() { throw error }
        guard fsync(fd) == 0 else { throw .file(errno: errno, path: path) }
        sha256 = hasher?.finalize()
    }

    /// Starts writing the file's bytes to the disk without waiting for them, and closes it: the caller
    /// flushes it (fsync) before it depends on it, which then mostly waits for writes already under way.
    func startWritebackAndClose() throws(HTTPError) {
        defer { close(fd); fd = -1 }
        if let error = flush() { throw error }
        DurableFile.startWriteback(fd)
        sha256 = hasher?.finalize()
    }

    /// `bytes <start>-<end>/<total or *>`.
    static func parseContentRange(_ value: String?) -> (start: Int64, total: Int64?)? {
        guard let value, value.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard spec.count == 2, let dash = spec[0].firstIndex(of: "-"),
              let start = Int64(spec[0][..<dash].trimmingSpaces) else { return nil }
        return (start, Int64(spec[1].trimmingSpaces))
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}
