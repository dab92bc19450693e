import Editing
import Library
import Logging
import Shared
import Store
import Support
import Synchronization

/// `library.import`: folders of local photos into the library with perceptual hashes, near-duplicates
/// skipped, one import at a time.
final class ImportCapability: Sendable {
    let importer: PhotoImporter
    private let state: DaemonState
    private let counter: LibraryCounter
    private let logger: Logger
    /// The folder being imported, if any.
    let running = Mutex<String?>(nil)

    init(importer: PhotoImporter, state: DaemonState, counter: LibraryCounter, logger: Logger) {
        self.importer = importer
        self.state = state
        self.counter = counter
        self.logger = logger
    }

    /// Imports a folder as the one import under way, its progress on the bus; then each new photo
    /// on the bus, the library's counts refreshed, and one log line with what came of it.
    func importFolder(_ request: LibraryImportRequest) async throws -> ImportResult {
        let started = ContinuousClock.now
        let result = try await alone(importing: request.path) {
            try await importer.importPath(
                request.path, recursive: request.recursive == true, accountId: state.current.account.userId ?? ""
            ) { progress in self.state.bus.publish(.importProgress(progress)) }
        }
        for photo in result.imported { state.bus.publish(.photoChanged(PhotoChange(id: photo.id, change: .added))) }
        counter.refresh()
        logger.info("imported \(result.imported.count) photos from \(request.path)", metadata: [
            "splashd_op": "import", "splashd_count": "\(result.imported.count)",
            "splashd_duplicates": "\(result.duplicates.count)", "splashd_failed": "\(result.failed.count)",
            "splashd_duration_ms": "\(started.millisecondsElapsed)",
        ])
        return result
    }

    /// Runs `body` as the one import under way; another import asked for meanwhile is refused as busy.
    func alone<T>(importing path: String, _ body: () async throws -> T) async throws -> T {
        let busyWith = running.withLock { running -> String? in
            if let running { return running }
            running = path
            return nil
        }
        if let busyWith { throw RPCError(.busy, "an import of \(busyWith) is running; wait for it to finish", retryAfter: 5) }
        defer { running.withLock { $0 = nil } }
        return try await body()
    }

    static func make(config: DaemonConfig, store: Store, state: DaemonState, counter: LibraryCounter, logger: Logger) -> ImportCapability {
        let editor = ImageEditor(limits: .init(maxPixels: config.imagesMaxMegapixels * 1_000_000, jpegQuality: config.editsJPEGQuality))
        return ImportCapability(
            importer: PhotoImporter(store: store, editor: editor, duplicateThreshold: config.duplicateThreshold), state: state, counter: counter,
            logger: logger)
    }
}
