import Editing
import Synchronization

/// The memory tier in front of the files: pictures decoded for terminals, kept by file and size, the
/// least recently used dropped first once `maxBytes` is passed. Decoding is the expensive part of a
/// picture (a JPEG read from disk, shrunk, converted); a grid drawn again, a page gone back to or a
/// photo shown twice draws from here.
///
/// Keyed by the file's identity as well as its path (size and modification time), so a file replaced
/// under the same name is decoded again, never drawn stale.
final class PixelCache: Sendable {
    struct Key: Hashable, Sendable {
        var path: String
        var fileBytes: Int64
        var modified: Int64
        /// The box the pixels were shrunk to fit.
        var width: Int
        var height: Int
    }

    struct Usage: Sendable, Equatable {
        var entries = 0
        var bytes: Int64 = 0
        var hits = 0
        var misses = 0
    }

    let maxBytes: Int64
    private let state = Mutex(State())

    private struct State {
        var entries: [Key: (pixels: RawPixels, lastUse: UInt64)] = [:]
        var clock: UInt64 = 0
        var usage = Usage()
    }

    init(maxBytes: Int64) {
        self.maxBytes = maxBytes
    }

    /// The pixels kept for `key`, counted as a hit or a miss.
    func pixels(for key: Key) -> RawPixels? {
        state.withLock { state in
            state.clock += 1
            guard let entry = state.entries[key] else {
                state.usage.misses += 1
                return nil
            }
            state.entries[key] = (entry.pixels, state.clock)
            state.usage.hits += 1
            return entry.pixels
        }
    }

    /// Keeps `pixels`, dropping the least recently used until the tier fits. A picture larger than the
    /// whole tier is not kept.
    func keep(_ pixels: RawPixels, for key: Key) {
        let size = Int64(pixels.bytes.count)
        guard size <= maxBytes else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.entries.updateValue((pixels, state.clock), forKey: key) {
                state.usage.bytes -= Int64(old.pixels.bytes.count)
            }
            state.usage.bytes += size
            while state.usage.bytes > maxBytes, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries.removeValue(forKey: oldest.key)
                state.usage.bytes -= Int64(oldest.value.pixels.bytes.count)
            }
            state.usage.entries = state.entries.count
        }
    }

    var usage: Usage { state.withLock { $0.usage } }
}
