import Control
import Shared

/// `library.import`.
enum ImportRoutes {
    static func register(into router: inout Router, imports: ImportCapability?) {
        router.register(LibraryImportRequest.self) { request, _ in
            guard let imports else { throw CapabilityMissing("importing") }
            return try await imports.importFolder(request)
        }
    }
}
