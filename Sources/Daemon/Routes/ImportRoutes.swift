import Control
import Shared

/// `library.import` and watched folders.
enum ImportRoutes {
    static func register(into router: inout Router, imports: ImportCapability?) {
        router.register(LibraryImportRequest.self) { request, _ in
            guard let imports else { throw CapabilityMissing("importing") }
            return try await imports.importFolder(request)
        }
        router.register(LibraryWatchingRequest.self) { _, _ in
            guard let imports else { throw CapabilityMissing("importing") }
            return WatchedFoldersResult(folders: try imports.watcher.folders())
        }
        router.register(LibraryUnwatchRequest.self) { request, _ in
            guard let imports else { throw CapabilityMissing("importing") }
            guard try imports.watcher.unwatch(request.path) else {
                throw DaemonFailure.folderNotWatched(path: request.path)
            }
            return WatchedFoldersResult(folders: try imports.watcher.folders())
        }
    }
}
