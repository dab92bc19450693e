import Control
import Editing
import Foundation
import Library
import Logging
import Shared
import Store
import Support
import Synchronization

/// `library.import`: folders of local photos into the library, one import at a time.
final class ImportCapability: Sendable {
    let importer: PhotoImporter
    init(importer: PhotoImporter) { self.importer = importer }
    let running = Mutex<String?>(nil)
}

enum ImportRoutes {
    static func makeCapability(config: DaemonConfig, store: Store) -> ImportCapability {
        let editor = ImageEditor(limits: .init(maxPixels: config.imagesMaxMegapixels * 1_000_000, jpegQuality: config.editsJPEGQuality))
        return ImportCapability(importer: PhotoImporter(store: store, editor: editor, duplicateThreshold: config.duplicateThreshold))
    }

    static func register(into router: inout Router, state: DaemonState, library: PhotoLibrary, imports: ImportCapability?, logger: Logger) {
        router.register(LibraryImportRequest.self) { request, _ in
            guard let imports else { throw RPCError(.internalError, "importing is not available in this daemon (see its log)") }
            let busyWith = imports.running.withLock { running -> String? in
                if let running { return running }
                running = request.path
                return nil
            }
            if let busyWith { throw RPCError(.busy, "an import of \(busyWith) is running; wait for it to finish", retryAfter: 5) }
            defer { imports.running.withLock { $0 = nil } }

            let started = ContinuousClock.now
            let result: ImportResult
            do {
                result = try await imports.importer.importPath(
                    request.path, recursive: request.recursive == true, accountId: state.current.account.userId ?? ""
                ) { progress in
                    state.bus.publish(.importProgress(progress))
                }
            } catch LibraryError.unreadable(let path, let reason) {
                throw RPCError(.notFound, "\(path): \(reason)", field: "path")
            }
            for photo in result.imported { state.bus.publish(.photoChanged(PhotoChange(id: photo.id, change: .added))) }
            LibraryRoutes.refreshCounts(state: state, library: library, logger: logger)
            let elapsed = ContinuousClock.now - started
            logger.info("imported \(result.imported.count) photos from \(request.path)", metadata: [
                "splashd_op": "import", "splashd_count": "\(result.imported.count)",
                "splashd_duplicates": "\(result.duplicates.count)", "splashd_failed": "\(result.failed.count)",
                "splashd_duration_ms": "\(elapsed.wholeMilliseconds)",
            ])
            return result
        }
    }
}
