import Control
import Shared

/// `library.export`: the Pictures folder checked or rebuilt.
enum ExportRoutes {
    static func register(into router: inout Router, picturesFolder: PicturesFolderService?) {
        router.register(LibraryExportRequest.self) { request, _ in
            guard let picturesFolder else {
                throw RPCError(.conflict, "there is no Pictures folder: pictures.folder is not set and there is no home directory")
            }
            return try picturesFolder.export(check: request.check == true)
        }
    }
}
