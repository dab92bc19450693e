import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Lets go of the pages mapped from files — code and constant data — that a burst of work mapped in,
/// once it is over.
///
/// The kernel maps an executable's code in as it runs, 64 KiB around each page touched, and leaves it
/// mapped: the start and the first requests touch most of splashd's 27 MB of code (the static Swift
/// runtime, Foundation, NIO, GRDB), which then counted in its resident size for good — 24 of a bare
/// daemon's 57 MB — though nothing runs it while it idles. Those pages are clean
/// copies of the files: `madvise(MADV_DONTNEED)` unmaps them, the page cache keeps them, and the next
/// request that needs them maps them again from there without reading the disk (a minor fault per
/// 64 KiB, about a microsecond).
///
/// Only the loaded objects' read-only segments (the executable's and libraries' code and constants, as
/// the loader lists them: `dl_iterate_phdr`, under its lock) are let go, never a writable one — a
/// relocated table (RELRO) or any written page exists nowhere else — nor an object whose text was
/// relocated in place, nor any other mapping (a file libvips maps while it reads an image could be gone,
/// its addresses the heap's, by the time it is let go).
///
/// When: once a burst of work that mapped `threshold` more than idling keeps is over — the look (a
/// watchdog ping) that finds the resident file pages (`/proc/self/statm`) grown by less than `quiet`
/// since the look before. What idling keeps is read at the first quiet look after a release, once the
/// idle work (the pings, the heartbeats) has mapped its own pages again — unless that look finds more
/// than the threshold mapped again: work went on after the release (the rest of a start), and is let go
/// once more before what stays is taken for idling's (without that second release a daemon with
/// 100,000 photos kept 22 MB of file pages idle). Measured against the release
/// itself instead, every idle ping mapped more than the threshold again (the Swift runtime's metadata
/// lookups touch megabytes) and let go of it again: 1,326 `madvise` a minute and 520 ms of CPU over five
/// idle minutes, ten times the target. An idle daemon reads one small file per ping and lets go of
/// nothing.
public struct CleanMappedPages: Sendable {
    /// What stays mapped while idle; nil after a release until a quiet look reads it. Zero at the start:
    /// the start's pages go at the first quiet look.
    private var idleResident: Int? = 0
    /// The resident file bytes at the last look (or right after the last release).
    private var lastResident = 0
    /// The resident file bytes right after the last release.
    private var afterRelease = 0
    /// Whether the last release was the second of a burst (no third follows: idling is what stays).
    private var releasedAgain = false
    private let threshold: Int
    private let quiet: Int

    public init(threshold: Int = 4 << 20, quiet: Int = 512 << 10) {
        self.threshold = threshold
        self.quiet = quiet
    }

    /// Lets go of the pages when a burst that grew them enough over what idling keeps is over; whether it did.
    @discardableResult
    public mutating func releaseIfGrown() -> Bool {
        guard let resident = Self.residentFileBytes(), shouldRelease(resident: resident) else { return false }
        Self.release()
        released(residentAfter: Self.residentFileBytes() ?? 0)
        return true
    }

    /// Whether to let go now, given the resident file bytes read at this look.
    public mutating func shouldRelease(resident: Int) -> Bool {
        let isQuiet = resident - lastResident < quiet
        lastResident = resident
        guard isQuiet else { return false }
        guard let idle = idleResident else {
            if !releasedAgain, resident - afterRelease >= threshold {
                releasedAgain = true
                return true
            }
            idleResident = resident
            releasedAgain = false
            return false
        }
        return resident - idle >= threshold
    }

    /// The pages were let go; `residentAfter` is what stayed.
    public mutating func released(residentAfter: Int) {
        idleResident = nil
        lastResident = residentAfter
        afterRelease = residentAfter
    }

    /// Unmaps the pages of every loaded object's read-only segments now (they stay in the page cache);
    /// returns the bytes of the ranges let go.
    @discardableResult
    public static func release() -> Int {
        splashd_release_read_only_segments()
    }

    /// Resident pages backed by a file (`/proc/self/statm`'s third field), in bytes.
    public static func residentFileBytes() -> Int? {
        guard let statm = procText("/proc/self/statm") else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count >= 3, let pages = Int(fields[2]) else { return nil }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    /// A `/proc` file's text: read to its end (its size says 0).
    private static func procText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return n == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes += buffer[..<n]
        }
    }
}
