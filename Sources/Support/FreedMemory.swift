import CLinux

/// Hands the memory the process has freed back to the system.
///
/// glibc keeps what a thread freed in that thread's arena for its next allocation, and gives back on its
/// own only what lies at the top of the main heap. A daemon whose bursts (a start, a pull, a push of
/// thousands of likes, a page of photos encoded) run on a pool of threads so keeps the high-water mark
/// of every burst resident while it idles: 22 of its 78 MB idle with 100,000 photos, of which
/// `malloc_trim` gave back 7.7 MB.
///
/// A release walks every arena and advises the kernel of each free page (656 `madvise` calls a minute
/// when done after every watchdog ping), so it is done only once the free bytes moved by a mebibyte
/// since the last one: an idle daemon releases nothing, and makes no call.
public struct FreedMemory: Sendable {
    /// Free bytes in the arenas after the last release.
    private var freeAtLastRelease = 0
    private let threshold: Int

    public init(threshold: Int = 1 << 20) {
        self.threshold = threshold
    }

    /// Releases the freed pages of every arena when enough changed since the last time; whether it did.
    @discardableResult
    public mutating func releaseIfMoved() -> Bool {
        guard abs(Self.freeBytes - freeAtLastRelease) >= threshold else { return false }
        malloc_trim(0)
        freeAtLastRelease = Self.freeBytes
        return true
    }

    /// Caps glibc's arenas at `count`, for the process's life: called first thing, before its threads
    /// allocate. glibc gives a thread that finds the arenas in use an arena of its own, up to eight per
    /// core, and what a burst freed in each stays there in pieces `malloc_trim` cannot give back whole.
    /// Two, in scenario 5's idle daemon (docs/performance.md): 9.0 MB of anonymous memory became 6.9 MB.
    public static func limitArenas(to count: Int32 = 2) {
        mallopt(M_ARENA_MAX, count)
    }

    /// Bytes in free chunks of the arenas (released to the system or not).
    static var freeBytes: Int { Int(mallinfo2().fordblks) }
}
