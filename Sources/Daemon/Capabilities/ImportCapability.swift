import Editing
import Library
import Shared
import Store
import Synchronization

/// `library.import`: folders of local photos into the library with perceptual hashes, near-duplicates
/// skipped, one import at a time.
final class ImportCapability: Sendable {
    let importer: PhotoImporter
    /// The folder being imported, if any.
    let running = Mutex<String?>(nil)

    init(importer: PhotoImporter) { self.importer = importer }

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

    static func make(config: DaemonConfig, store: Store) -> ImportCapability {
        let editor = ImageEditor(limits: .init(maxPixels: config.imagesMaxMegapixels * 1_000_000, jpegQuality: config.editsJPEGQuality))
        return ImportCapability(importer: PhotoImporter(store: store, editor: editor, duplicateThreshold: config.duplicateThreshold))
    }
}
