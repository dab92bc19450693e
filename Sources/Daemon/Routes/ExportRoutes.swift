import Control
import Shared

/// `library.export`: the Pictures folder checked or rebuilt.
enum ExportRoutes {
    static func register(into router: inout Router, picturesFolder: PicturesFolderService?) {
        router.register(LibraryExportRequest.self) { request, _ in
            guard let picturesFolder else {
                throw DaemonFailure.noPicturesFolder
            }
            return try await picturesFolder.export(check: request.check == true)
        }
    }
}
