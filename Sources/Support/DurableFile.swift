#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Foundation

/// Writes that survive a crash or a power cut: the bytes go to a temporary name, are flushed, and are
/// renamed over the final name, and the directory is flushed so the rename itself is durable. A
/// reader sees the old file or the new one, never half of one. The session file, edits, setup's
/// config and downloads all write this way.
public enum DurableFile {
    /// Writes `bytes` to `path` (created or truncated with `mode`, which is set again on an existing
    /// file, since O_CREAT keeps an old mode) and flushes it. On failure the file is removed.
    public static func write(_ bytes: some ContiguousBytes, to path: String, mode: mode_t = 0o600) throws(FileError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileError(.write, path: path, errno: errno) }
        var failure: Int32 = bytes.withUnsafeBytes { writeAll(fd, $0) }
        if failure == 0 && fchmod(fd, mode) != 0 { failure = errno }
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        close(fd)
        guard failure == 0 else {
            unlink(path)
            throw FileError(.write, path: path, errno: failure)
        }
    }

    /// Replaces `path` with `bytes`: written to `path + temporarySuffix`, flushed, renamed into place,
    /// and the directory flushed.
    public static func replace(
        _ path: String, with bytes: some ContiguousBytes, mode: mode_t = 0o600, temporarySuffix: String = ".tmp"
    ) throws(FileError) {
        let temporary = path + temporarySuffix
        try write(bytes, to: temporary, mode: mode)
        try rename(temporary, to: path)
    }

    /// Renames `source` over `destination` and flushes the directory. On failure `source` is removed.
    public static func rename(_ source: String, to destination: String) throws(FileError) {
        guard Glibc.rename(source, destination) == 0 else {
            let code = errno
            unlink(source)
            throw FileError(.rename, path: destination, errno: code)
        }
        syncDirectory(of: destination)
    }

    /// Flushes the directory that holds `path`, so that a rename, creation or removal in it survives a
    /// power cut; without this a crash could bring back the old directory entry. Best effort: a
    /// directory that cannot be opened has nothing to flush.
    public static func syncDirectory(of path: String) {
        sync(directory: directory(of: path))
    }

    /// Flushes `directory` itself (see `syncDirectory(of:)`): for a caller that flushes each directory
    /// of many files once.
    public static func sync(directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Creates `directory` and whatever of its parents is missing, each with `mode`, and flushes the
    /// parent of each one made: a file flushed into a directory whose own name was never flushed is
    /// lost with it when the power goes. Already there: nothing is written.
    public static func makeDirectories(_ directory: String, mode: mode_t = 0o700) throws(FileError) {
        var missing: [String] = []
        var path = directory
        while !path.isEmpty && path != "/" && path != "." && access(path, F_OK) != 0 {
            missing.append(path)
            path = self.directory(of: path)
        }
        for made in missing.reversed() {
            guard mkdir(made, mode) == 0 || errno == EEXIST else { throw FileError(.create, path: made, errno: errno) }
            syncDirectory(of: made)
        }
    }

    /// The directory that holds `path`.
    public static func directory(of path: String) -> String {
        path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    }

    /// Flushes a file's data (a copy made by someone else) before it is renamed into place.
    public static func syncFile(at path: String) throws(FileError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(.sync, path: path, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw FileError(.sync, path: path, errno: errno) }
    }

    /// Starts writing an open file's dirty pages to the disk and returns without waiting for them (and
    /// without flushing its metadata or the disk's cache: not durable until an fsync). The fsync that
    /// follows then mostly waits for writes already under way, so a batch of files is flushed one after
    /// another in about the time of one.
    public static func startWriteback(_ fd: Int32) {
        _ = sync_file_range(fd, 0, 0, UInt32(SPLASHD_SYNC_FILE_RANGE_WRITE))
    }

    /// Writes the whole buffer, resuming after short writes and EINTR; returns 0 or the errno.
    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32 {
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return 0
    }
}
