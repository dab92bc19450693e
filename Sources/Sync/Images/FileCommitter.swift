#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Store
import Support
import Synchronization

/// Lands downloaded files in batches, the way a database commits a group: every file that finished
/// while the last batch was being landed is flushed, renamed into place, its directory flushed once,
/// and its row written in one transaction with the others. Done per file inside each transfer, the
/// two fsyncs and the transaction were most of a pull's time (a file's fsync waited for its bytes to
/// reach the disk, one file at a time per transfer, blocking one of the process's few threads).
///
/// The order per file is the one a crash needs, batch or not: its bytes durable, then its rename, then
/// the directory, then its row. A crash anywhere leaves a `.download` (checked and landed again at
/// the next attempt) or a placed file without its row (recorded without fetching it again).
///
/// Runs on a serial queue of its own, not on the task pool: fsync blocks.
final class FileCommitter: Sendable {
    /// One file to land: `staged` (already checked and hashed) is renamed to `final`, whose row is `file`.
    /// `staged` nil: the file is in place already (a run died before recording it).
    struct Landing: Sendable {
        var staged: String?
        var final: String
        var file: PhotoFileStore.File
    }

    private struct Waiting {
        var landing: Landing
        var continuation: CheckedContinuation<ImageFailure?, Never>
    }

    private struct State {
        var waiting: [Waiting] = []
        var landing = false
    }

    private let store: Store
    private let queue = DispatchQueue(label: "splashd.images.commit", qos: .utility)
    private let state = Mutex(State())
    /// A test's seam: called with each batch's size before it is landed.
    private let batchLanding: (@Sendable (Int) -> Void)?

    init(store: Store, batchLanding: (@Sendable (Int) -> Void)? = nil) {
        self.store = store
        self.batchLanding = batchLanding
    }

    /// Returns once the file is in place, durable and recorded, with the batch it went in.
    func land(_ landing: Landing) async throws(ImageFailure) {
        let failure: ImageFailure? = await withCheckedContinuation { continuation in
            let start = state.withLock { state -> Bool in
                state.waiting.append(Waiting(landing: landing, continuation: continuation))
                defer { state.landing = true }
                return !state.landing
            }
            if start { queue.async { self.landWaiting() } }
        }
        if let failure { throw failure }
    }

    /// Landings waiting for the next batch (a test's view).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Lands what waits, batch after batch, until nothing does.
    private func landWaiting() {
        while true {
            let batch = state.withLock { state -> [Waiting] in
                defer { state.waiting = [] }
                if state.waiting.isEmpty { state.landing = false }
                return state.waiting
            }
            if batch.isEmpty { return }
            batchLanding?(batch.count)
            let failures = landBatch(batch.map(\.landing))
            for (waiting, failure) in zip(batch, failures) { waiting.continuation.resume(returning: failure) }
        }
    }

    /// The batch's failures, one per landing (nil: landed).
    func landBatch(_ batch: [Landing]) -> [ImageFailure?] {
        var failures = [ImageFailure?](repeating: nil, count: batch.count)
        for (index, landing) in batch.enumerated() {
            guard let staged = landing.staged else { continue }
            do throws(FileError) {
                try DurableFile.syncFile(at: staged)
            } catch {
                failures[index] = ImageFailure(message: "cannot flush \(staged): \(error)", transient: true)
                continue
            }
            guard rename(staged, landing.final) == 0 else {
                failures[index] = ImageFailure(
                    message: "cannot move the file into the library: \(String(cString: strerror(errno)))", transient: true)
                continue
            }
        }
        // The renames must survive a power cut before the rows that point at them do.
        let moved = batch.indices.filter { failures[$0] == nil && batch[$0].staged != nil }
        for directory in Set(moved.map { DurableFile.directory(of: batch[$0].final) }) { DurableFile.sync(directory: directory) }
        // Aimed at the library's downloads: thumbnails of what searches showed arrive in the
        // background too, and a kill meant for a liked photo's file must not land on one of them.
        if moved.contains(where: { batch[$0].file.inLibrary }) { CrashPoint.downloadRenamed.reach() }
        let recorded = batch.indices.filter { failures[$0] == nil }
        do {
            try store.write { db in
                for index in recorded { try PhotoFileStore.record(db, batch[index].file) }
            }
        } catch {
            for index in recorded {
                failures[index] = ImageFailure(message: "cannot record the file: \(error)", transient: true)
            }
        }
        return failures
    }
}
