import Foundation
import Logging
import Shared
import Store

/// Once at start, before the queue starts any transfer or move: removes what a run that died left in
/// the library and no one will finish — unfinished pieces (`.download.part`, `.download`, `.moving`)
/// that no missing photo will resume, edits' half-written renderings, and placed files that no row
/// points at and no missing photo will claim (a photo unliked or removed while the daemon was down);
/// and the cache's unfinished pieces, which nothing resumes (a cached picture is fetched anew when it is
/// asked for).
struct StaleFileSweep {
    let store: Store
    let dataDirectory: String
    let cacheDirectory: String
    let variant: String
    /// When this process started: files placed by it are being recorded right now, not left over.
    let processStarted: Date
    let logger: Logger

    func run(accountId: String) {
        let wanted: Set<String>
        let recorded: Set<String>
        do {
            (wanted, recorded) = try store.read { [variant] db in
                (
                    Set(try PhotoFileStore.missing(db, accountId: accountId, variant: variant, limit: 1_000_000).map {
                        ImagePaths.library(source: $0.source, remoteId: $0.remoteId, variant: variant)
                    }),
                    // Edits' renderings too: each is recorded in photo_files (variant `edit:<id>`) in the
                    // transaction that records the edit.
                    try PhotoFileStore.libraryPaths(db)
                )
            }
        } catch {
            return
        }
        let root = dataDirectory + "/library"
        var removed = 0
        // library/google is the Google Photos importer's: its pieces are picks it goes on with.
        for source in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] where source != PhotoSource.google.rawValue {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + source)) ?? [] {
                let path = root + "/" + source + "/" + name
                // An edit's rendering half-written by a run that died (saved here, or pulled): never recorded.
                // Only one older than this process: an edit saved or pulled right now, while this sweep
                // runs, is being written under that name (chaos saw an edits.create just after a start
                // lose its rendering to the sweep and fail on its rename).
                if name.contains(".edit-"), name.hasSuffix(".part") || name.contains(".pulled-") {
                    if leftByAnEarlierRun(path), unlink(path) == 0 { removed += 1 }
                    continue
                }
                // A file placed by a run that died between its rename and its row (an edit's rendering, a
                // download) that no row points at and no missing photo will claim (a photo unliked
                // meanwhile). Only files older than this process: one being saved right now is renamed
                // a moment before its row commits.
                let relative = "library/\(source)/\(name)"
                if name.hasSuffix(".jpg"), !recorded.contains(relative), !wanted.contains(relative),
                   leftByAnEarlierRun(path) {
                    if unlink(path) == 0 { removed += 1 }
                    continue
                }
                guard let suffix = Self.pieceSuffixes.first(where: { name.hasSuffix($0) }) else { continue }
                let final = "library/\(source)/" + name.dropLast(suffix.count)
                if !wanted.contains(final), unlink(path) == 0 { removed += 1 }
            }
        }
        removed += sweepCachePieces()
        if removed > 0 {
            logger.info("removed \(removed) unfinished or unrecorded files no longer wanted", metadata: ["splashd_op": "images"])
        }
    }

    /// Unfinished pieces in the cache's `images/<source>/` folders older than this process; how many.
    private func sweepCachePieces() -> Int {
        let root = cacheDirectory + "/images"
        var removed = 0
        for source in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + source)) ?? []
            where Self.pieceSuffixes.contains(where: { name.hasSuffix($0) }) {
                let path = root + "/" + source + "/" + name
                if leftByAnEarlierRun(path), unlink(path) == 0 { removed += 1 }
            }
        }
        return removed
    }

    /// Whether the file was last written before this process started: left by a run that died, not
    /// one this process is writing while the sweep runs.
    private func leftByAnEarlierRun(_ path: String) -> Bool {
        LocalFile.modified(path).map { $0 < processStarted } ?? false
    }

    static let pieceSuffixes = [".download.part", ".download", ".moving"]
}
