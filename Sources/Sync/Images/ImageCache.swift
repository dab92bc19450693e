#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Store

/// The cache: files outside the library (in_library = 0, under the cache directory), evicted least
/// recently used once they exceed the configured size. Library files are never candidates.
public struct ImageCache: Sendable {
    public struct Pruned: Sendable, Equatable {
        public var files = 0
        public var bytes: Int64 = 0
    }

    let store: Store
    let cacheDirectory: String
    let logger: Logger

    public init(store: Store, cacheDirectory: String, logger: Logger) {
        self.store = store
        self.cacheDirectory = cacheDirectory
        self.logger = logger
    }

    /// Removes cache files, oldest use first, until the cache holds at most `maxBytes`. The row goes
    /// before the file: a crash in between leaves an unlisted file, never a row pointing at nothing.
    @discardableResult
    public func evict(maxBytes: Int64) -> Pruned {
        var pruned = Pruned()
        do {
            let victims = try store.write { db in
                let files = try PhotoFileStore.evictionCandidates(db, maxBytes: max(0, maxBytes))
                try PhotoFileStore.forget(db, files)
                return files
            }
            for file in victims {
                if unlink(cacheDirectory + "/" + file.path) != 0 && errno != ENOENT {
                    logger.warning("cannot remove an evicted cache file: \(String(cString: strerror(errno)))", metadata: [
                        "splashd_op": "cache", "splashd_photo": "\(file.photoId)",
                    ])
                }
                pruned.files += 1
                pruned.bytes += file.bytes
            }
        } catch {
            logger.error("cannot evict from the cache: \(error)", metadata: ["splashd_op": "cache"])
        }
        if pruned.files > 0 {
            logger.info("evicted \(pruned.files) cache files (\(pruned.bytes) bytes)", metadata: ["splashd_op": "cache"])
        }
        return pruned
    }
}
