#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Store
import Support
import Synchronization

/// The files a run that did not end cleanly wrote, checked against their checksums before anything
/// reads them. Every file is flushed before its row commits, so a power cut cannot tear one; a disk
/// that lies about its flushes, or a cut inside one, can. Those files are suspects until their bytes
/// are hashed: one asked for first (`vouches`, on the way to the gallery or a terminal) is hashed
/// there, the rest in the background (`checkAll`). A file whose bytes are not its checksum loses its
/// row and goes, so that the image queue fetches it again and nothing serves the garbage.
public final class FileAudit: Sendable {
    public struct Key: Hashable, Sendable {
        public let photoId: String
        public let variant: String
    }

    /// What a check found.
    enum Verdict: Sendable, Equatable {
        /// Not a suspect, or its bytes are its checksum.
        case whole
        /// Its bytes were not its checksum (or could not be read): its row and file are gone.
        case damaged(reason: String)
    }

    private let store: Store?
    private let dataDirectory: String
    private let cacheDirectory: String
    private let suspects: Mutex<[Key: PhotoFileStore.File]>
    /// Told of each damaged file once it is gone, by whichever check found it (`followRemovals`).
    private let removalFollowers = Mutex<[@Sendable (Key, String) -> Void]>([])
    /// Held while one suspect is hashed and, if damaged, removed: a second reader of the same file
    /// waits for the verdict instead of reading bytes under judgement.
    private let judging = Mutex(())

    /// No suspects: a run after a clean stop, or a test.
    public static let none = FileAudit(store: nil, suspects: [], dataDirectory: "", cacheDirectory: "")

    /// The store's files recorded since `since` (the start of the run that did not end cleanly) are
    /// the suspects.
    public static func filesRecorded(since: Date, store: Store, dataDirectory: String, cacheDirectory: String) throws -> FileAudit {
        let files = try store.read { db in try PhotoFileStore.recordedSince(db, since) }
        return FileAudit(store: store, suspects: files, dataDirectory: dataDirectory, cacheDirectory: cacheDirectory)
    }

    init(store: Store?, suspects: [PhotoFileStore.File], dataDirectory: String, cacheDirectory: String) {
        self.store = store
        self.dataDirectory = dataDirectory
        self.cacheDirectory = cacheDirectory
        self.suspects = Mutex(Dictionary(suspects.map { (Key(photoId: $0.photoId, variant: $0.variant), $0) }) { _, last in last })
    }

    /// Calls `removed` with each damaged file, and why, once it is gone: whoever fetches it again.
    public func followRemovals(_ removed: @escaping @Sendable (Key, String) -> Void) {
        removalFollowers.withLock { $0.append(removed) }
    }

    /// How many files are still to be checked.
    public var remaining: Int { suspects.withLock { $0.count } }

    /// Whether `file`'s bytes may be read: true for a file never suspected or already found whole; a
    /// suspect is checked now. False once it was found damaged (its row and file are gone).
    public func vouches(for file: PhotoFileStore.File) -> Bool {
        let key = Key(photoId: file.photoId, variant: file.variant)
        guard suspects.withLock({ $0[key] != nil }) else { return true }
        return judge(key) == .whole
    }

    /// Checks every suspect left, one at a time (blocking: run it off the cooperative threads); the
    /// damaged ones, with their reasons.
    public func checkAll() -> [(key: Key, reason: String)] {
        suspects.withLock { Array($0.keys) }.compactMap { key in
            if case .damaged(let reason) = judge(key) { return (key, reason) }
            return nil
        }
    }

    /// Hashes the suspect `key` (if it still is one) against the checksum of its row as the store has
    /// it now (a move between library and cache changed its path, not its bytes), and removes it if
    /// damaged.
    private func judge(_ key: Key) -> Verdict {
        judging.withLock { _ in
            guard suspects.withLock({ $0.removeValue(forKey: key) }) != nil, let store else { return .whole }
            let current: PhotoFileStore.File?
            do {
                current = try store.read { db in try PhotoFileStore.files(db, photoId: key.photoId).first { $0.variant == key.variant } }
            } catch {
                // Unreadable store: nothing to judge by now; the next unclean start asks again.
                return .whole
            }
            guard let current, let checksum = current.checksum, !current.path.hasPrefix("/") else { return .whole }
            let path = (current.inLibrary ? dataDirectory : cacheDirectory) + "/" + current.path
            let reason: String
            do throws(FileError) {
                let found = try FileDigest.sha256Hex(path: path)
                if found == checksum { return .whole }
                reason = "its bytes hash to \(found.prefix(12)), not \(checksum.prefix(12))"
            } catch {
                // Gone is not damaged: the image queue already fetches a file its row names in vain.
                if error.errno == ENOENT { return .whole }
                reason = "\(error)"
            }
            // The row first: a crash between the two leaves a file no row names, which the next
            // start's sweep removes or the download replaces; never a row naming garbage.
            do {
                try store.write { db in try PhotoFileStore.remove(db, current) }
            } catch {
                // Still a suspect: judged again by the next reader, never served meanwhile.
                suspects.withLock { $0[key] = current }
                return .damaged(reason: reason)
            }
            unlink(path)
            for follower in removalFollowers.withLock({ $0 }) { follower(key, reason) }
            return .damaged(reason: reason)
        }
    }
}
