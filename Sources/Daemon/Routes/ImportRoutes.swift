import Control
import Library
import Logging
import Shared
import Support
import Synchronization

/// `library.import`.
enum ImportRoutes {
    static func register(into router: inout Router, state: DaemonState, counter: LibraryCounter, imports: ImportCapability?, logger: Logger) {
        router.register(LibraryImportRequest.self) { request, _ in
            guard let imports else { throw CapabilityMissing("importing") }
            let started = ContinuousClock.now
            let result = try await imports.alone(importing: request.path) {
                try await imports.importer.importPath(
                    request.path, recursive: request.recursive == true, accountId: state.current.account.userId ?? ""
                ) { progress in state.bus.publish(.importProgress(progress)) }
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
    }
}
