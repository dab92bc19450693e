import Clocks
import Editing
import Foundation
import Library
import Logging
import Shared
import Store
import Support
import Sync
import Synchronization

/// `library.import` and watched folders: folders of local photos into the library with perceptual
/// hashes, near-duplicates skipped, one import at a time (a person's import is refused while another
/// runs; a watched folder's waits its turn).
final class ImportCapability: Sendable {
    let importer: PhotoImporter
    let watcher: FolderWatcher
    private let runs: Runs

    /// The one import under way, and the watched folders' imports waiting for it to end.
    final class Runs: Sendable {
        private struct State {
            var running: String?
            var waiting: [CheckedContinuation<Void, Never>] = []
        }

        private let state = Mutex(State())

        /// Runs `body` as the one import under way; another asked for meanwhile is refused as busy.
        func alone<T>(importing path: String, _ body: () async throws -> T) async throws -> T {
            if let busyWith = claim(path) { throw DaemonFailure.importRunning(path: busyWith) }
            defer { release() }
            return try await body()
        }

        /// Runs `body` once no import is under way (a watched folder's arrivals wait for a person's
        /// import, woken when it ends).
        func whenFree<T>(importing path: String, _ body: () async throws -> T) async throws -> T {
            while claim(path) != nil {
                await withCheckedContinuation { continuation in
                    let free = state.withLock { state -> Bool in
                        guard state.running != nil else { return true }
                        state.waiting.append(continuation)
                        return false
                    }
                    if free { continuation.resume() }
                }
            }
            defer { release() }
            return try await body()
        }

        /// Takes the one run for `path`; the path of the run under way when there is one.
        private func claim(_ path: String) -> String? {
            state.withLock { state in
                if let running = state.running { return running }
                state.running = path
                return nil
            }
        }

        private func release() {
            let waiting = state.withLock { state in
                state.running = nil
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in waiting { waiter.resume() }
        }
    }

    /// `renditions`: where a large imported photo asks for its screen copy (nil: no image capability).
    init(
        importer: PhotoImporter, state: DaemonState, store: Store, renditions: ScreenRenditions<AnyClock<Duration>>?, logger: Logger
    ) {
        self.importer = importer
        let runs = Runs()
        self.runs = runs
        let perform = Self.performer(importer: importer, state: state, renditions: renditions, logger: logger)
        watcher = FolderWatcher(store: store, logger: logger) { path, recursive, since in
            _ = try? await runs.whenFree(importing: path) { try await perform(path, recursive, since) }
        }
        self.perform = perform
    }

    private let perform: @Sendable (_ path: String, _ recursive: Bool, _ since: Date?) async throws -> ImportResult

    /// Imports a folder as the one import under way, its progress on the bus; then keeps watching it
    /// when asked.
    func importFolder(_ request: LibraryImportRequest) async throws -> ImportResult {
        let result = try await runs.alone(importing: request.path) { try await perform(request.path, request.recursive == true, nil) }
        if request.watch == true { try watcher.watch(request.path, recursive: request.recursive == true) }
        return result
    }

    /// An import of `path` with its progress on the bus; then each new photo on the bus, a screen copy
    /// asked for each large one, and one log line with what came of it.
    private static func performer(
        importer: PhotoImporter, state: DaemonState, renditions: ScreenRenditions<AnyClock<Duration>>?, logger: Logger
    ) -> @Sendable (String, Bool, Date?) async throws -> ImportResult {
        { path, recursive, since in
            let started = ContinuousClock.now
            let result = try await importer.importPath(path, recursive: recursive, accountId: state.actingAccount, changedSince: since) { progress in
                state.bus.publish(.importProgress(progress))
            }
            for photo in result.imported where photo.width * photo.height > ScreenRendition.worthwhilePixels {
                renditions?.wanted(photoId: photo.id, source: photo.path)
            }
            logger.info("imported \(result.imported.count) photos from \(path)", metadata: [
                "splashd_op": "import", "splashd_count": "\(result.imported.count)",
                "splashd_duplicates": "\(result.duplicates.count)", "splashd_failed": "\(result.failed.count)",
                "splashd_duration_ms": "\(started.millisecondsElapsed)",
            ])
            return result
        }
    }

    static func make(
        config: DaemonConfig, store: Store, state: DaemonState, renditions: ScreenRenditions<AnyClock<Duration>>?, announce: Announcements, logger: Logger
    ) -> ImportCapability {
        let editor = ImageEditor(limits: .init(maxPixels: config.imagesMaxMegapixels * 1_000_000, jpegQuality: config.editsJPEGQuality))
        return ImportCapability(
            importer: PhotoImporter(store: store, editor: editor, duplicateThreshold: config.duplicateThreshold, announce: announce), state: state,
            store: store, renditions: renditions, logger: logger)
    }
}
