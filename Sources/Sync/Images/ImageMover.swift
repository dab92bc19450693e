#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Store
import Support

/// Moves files between the library and the cache as likes change: an unliked photo's file is not
/// deleted (a re-like brings it back without the network) but becomes evictable cache; a re-liked
/// photo's cached file becomes library again.
///
/// Every step can be repeated after a crash: the file is moved first and the row follows, and a row
/// whose file is already at the destination is simply updated.
struct ImageMover: Sendable {
    let store: Store
    let dataDirectory: String
    let cacheDirectory: String
    let logger: Logger

    /// Moves what changed sides; returns how many files moved each way.
    func reconcile(accountId: String, variant: String) -> (unpinned: Int, repinned: Int) {
        var result = (unpinned: 0, repinned: 0)
        do {
            for file in try store.read({ db in try PhotoFileStore.unpinned(db) }) {
                if move(file, toLibrary: false) { result.unpinned += 1 }
            }
            for file in try store.read({ db in try PhotoFileStore.repinnable(db, accountId: accountId, variant: variant) }) {
                if move(file, toLibrary: true) { result.repinned += 1 }
            }
        } catch {
            logger.error("cannot read the library's files: \(error)", metadata: ["splashd_op": "images"])
        }
        return result
    }

    /// Rows whose file is not where they say but at the other side's place: a run died between a
    /// move's rename and its row. Each row is pointed at its file, and `reconcile` then moves it where
    /// the likes want it. Without this, a move cut short while the like changed back (an unlike's file
    /// renamed into the cache, the photo re-liked, the kill) left a liked photo whose row promised a
    /// library file that was in the cache: never fetched, never moved. Once at the start, before any
    /// move or transfer of this run.
    func pointRowsAtTheirFiles() -> Int {
        var repointed = 0
        do {
            for file in try store.read({ db in try PhotoFileStore.movable(db) }) {
                let (base, otherBase) = file.inLibrary ? (dataDirectory, cacheDirectory) : (cacheDirectory, dataDirectory)
                let other = file.movedPath
                guard access(base + "/" + file.path, F_OK) != 0, access(otherBase + "/" + other, F_OK) == 0 else { continue }
                try store.write { db in try PhotoFileStore.moved(db, file, to: other, inLibrary: !file.inLibrary, now: Date()) }
                repointed += 1
            }
        } catch {
            logger.error("cannot read the library's files: \(error)", metadata: ["splashd_op": "images"])
        }
        if repointed > 0 {
            logger.notice("\(repointed) photo files were found where a move cut short left them; their rows follow them", metadata: [
                "splashd_op": "images", "splashd_count": "\(repointed)",
            ])
        }
        return repointed
    }

    private func move(_ file: PhotoFileStore.File, toLibrary: Bool) -> Bool {
        let (fromBase, toBase) = toLibrary ? (cacheDirectory, dataDirectory) : (dataDirectory, cacheDirectory)
        let target = file.movedPath
        let source = fromBase + "/" + file.path, destination = toBase + "/" + target
        do {
            if access(source, F_OK) == 0 {
                try LocalFile.makeDirectories(for: destination)
                try Self.moveFile(source, destination)
                CrashPoint.imageMoved.reach()
            } else if access(destination, F_OK) != 0 {
                // Gone from both places (removed by hand): the row must not promise a file.
                try store.write { db in try PhotoFileStore.remove(db, file) }
                logger.warning("a photo's file was missing; it will be fetched again if needed", metadata: [
                    "splashd_op": "images", "splashd_photo": "\(file.photoId)",
                ])
                return false
            }
            try store.write { db in try PhotoFileStore.moved(db, file, to: target, inLibrary: toLibrary, now: Date()) }
            return true
        } catch {
            logger.error("cannot move a photo's file to the \(toLibrary ? "library" : "cache"): \(error)", metadata: [
                "splashd_op": "images", "splashd_photo": "\(file.photoId)",
            ])
            return false
        }
    }

    /// rename(2), or — when the data and cache directories are on different filesystems — a copy that is
    /// flushed and renamed into place before the original goes. Both directories are flushed: the
    /// destination's alone would let a power cut bring the file back at its old place too.
    static func moveFile(_ source: String, _ destination: String) throws(ImageFailure) {
        if rename(source, destination) == 0 {
            DurableFile.syncDirectory(of: destination)
            DurableFile.syncDirectory(of: source)
            return
        }
        guard errno == EXDEV else {
            throw ImageFailure(message: "cannot move \(source): \(String(cString: strerror(errno)))", transient: true)
        }
        let temporary = destination + ".moving"
        unlink(temporary)
        do {
            try FileManager.default.copyItem(atPath: source, toPath: temporary)
        } catch {
            throw ImageFailure(message: "cannot copy \(source): \(error.localizedDescription)", transient: true)
        }
        do {
            try DurableFile.syncFile(at: temporary)
            try DurableFile.rename(temporary, to: destination)
        } catch {
            throw ImageFailure(message: "cannot move \(source): \(error)", transient: true)
        }
        unlink(source)
        DurableFile.syncDirectory(of: source)
    }
}
