import Control
import Editing
import Foundation
import GRDB
import Library
import Logging
import Shared
import Store
import Support
import Sync

/// Filters, previews and edits.
struct EditCapability: Sendable {
    let studio: EditStudio
}

enum EditRoutes {
    /// The studio fetches a missing original through the image queue, when online.
    static func makeCapability(
        config: DaemonConfig, store: Store, directories: DaemonDirectories, images: ImageCapability?, network: NetworkGate
    ) -> EditCapability {
        let editor = ImageEditor(limits: .init(maxPixels: config.imagesMaxMegapixels * 1_000_000, jpegQuality: config.editsJPEGQuality))
        let studio = EditStudio(
            store: store, editor: editor, dataDirectory: directories.data, cacheDirectory: directories.cache,
            fetchOriginal: { photoId in
                guard let images else { throw RPCError(.offline, "the original of \(photoId) is not on this machine and downloads are unavailable") }
                guard network.isOnline() else {
                    throw RPCError(.offline, "the original of \(photoId) is not on this machine yet and splashd is offline; like it to have it downloaded when the network is back")
                }
                do throws(ImageFailure) {
                    try await images.queue.fetchNow(photoId: photoId)
                } catch {
                    throw RPCError(error.transient ? .offline : .notFound, "cannot download the original of \(photoId): \(error.message)")
                }
            })
        return EditCapability(studio: studio)
    }

    static func register(into router: inout Router, state: DaemonState, library: PhotoLibrary, edits: EditCapability?, sync: SyncCapability?, images: ImageCapability?, logger: Logger) {
        router.register(FiltersListRequest.self) { _, _ in
            FiltersListResult(filters: FilterCatalog.all)
        }
        // Every method is registered whatever the daemon has; without the editor they say so.
        @Sendable func studio() throws(RPCError) -> EditStudio {
            guard let edits else { throw RPCError(.internalError, "editing is not available in this daemon (see its log)") }
            return edits.studio
        }

        @Sendable func signedInAccount() throws(RPCError) -> String {
            let account = state.current.account
            guard account.state != .signedOut, let id = account.userId else {
                throw RPCError(.notSignedIn, "sign in to save edits (splashctl login); they are kept with your account")
            }
            return id
        }

        router.register(EditsPreviewRequest.self) { request, _ in
            let steps = try FilterCatalog.resolve(request.filters)
            let studio = try studio()
            let rendered = try await mapped {
                try await studio.preview(photoId: request.id, steps: steps, size: request.size ?? EditsPreviewRequest.defaultSize)
            }
            return EditPreviewResult(jpeg: rendered.jpeg, width: rendered.width, height: rendered.height)
        }

        router.register(EditsCreateRequest.self) { request, _ in
            let account = try signedInAccount()
            let steps = try FilterCatalog.resolve(request.filters)
            let studio = try studio()
            let started = ContinuousClock.now
            let edit = try await mapped { try await studio.create(photoId: request.id, steps: steps, accountId: account) }
            logger.info("edit saved", metadata: [
                "splashd_op": "edit", "splashd_photo": "\(request.id)", "splashd_edit": "\(edit.id)",
                "splashd_duration_ms": "\(started.millisecondsElapsed)",
            ])
            LibraryRoutes.refreshCounts(state: state, library: library, logger: logger)
            state.bus.publish(.photoChanged(PhotoChange(id: request.id, change: .edited)))
            sync?.engine?.ring()
            return try summary(edit, store: library.store, dataDirectory: studio.dataDirectory)
        }

        router.register(EditsListRequest.self) { request, _ in
            let account = try signedInAccount()
            let studio = try studio()
            let records = try library.store.read { db in try EditRecord.live(db, accountId: account, photoId: request.id) }
            return EditsListResult(edits: try records.map { try summary($0, store: library.store, dataDirectory: studio.dataDirectory) })
        }

        router.register(EditsDeleteRequest.self) { request, _ in
            let account = try signedInAccount()
            let studio = try studio()
            let removal = try await mapped { try studio.remove(editId: request.editId.lowercased(), accountId: account) }
            switch removal {
            case .alreadyRemoved:
                return EditDeleteResult(editId: request.editId, changed: false, queued: false)
            case .removed(let queued, _, _):
                LibraryRoutes.refreshCounts(state: state, library: library, logger: logger)
                if queued { sync?.engine?.ring() }
                return EditDeleteResult(editId: request.editId, changed: true, queued: queued)
            }
        }
    }

    /// An edit as clients see it, with its upload state read from the outbox.
    static func summary(_ edit: EditRecord, store: Store, dataDirectory: String) throws -> EditSummary {
        let (states, bytes) = try store.read { db in
            (
                try String.fetchAll(db, sql: "SELECT state FROM outbox WHERE entity = ? AND entity_id = ?", arguments: [EditActions.entity, edit.id]),
                try Int64.fetchOne(db, sql: "SELECT bytes FROM photo_files WHERE photo_id = ? AND variant = ?", arguments: [edit.photoId, "edit:\(edit.id)"])
            )
        }
        let state = states.contains("rejected") ? "rejected" : (states.isEmpty ? "synced" : "pending")
        return EditSummary(
            editId: edit.id, photoId: edit.photoId, filters: (try? EditActions.decodePipeline(edit.pipeline)) ?? [],
            path: edit.path.map { dataDirectory + "/" + $0 }, bytes: bytes, state: state, createdAt: edit.createdAt)
    }

    /// Domain errors in the protocol's terms.
    static func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as EditingError {
            switch error {
            case .tooLarge: throw RPCError(.tooLarge, error.description, field: "id")
            case .unsupported, .corrupt: throw RPCError(.invalidInput, "the photo's original cannot be edited: \(error.description)", field: "id")
            case .noSpace: throw RPCError(.noSpace, error.description)
            case .io, .engine: throw RPCError(.internalError, error.description)
            }
        } catch LibraryError.unknownPhoto(let id) {
            throw RPCError(.notFound, LibraryError.unknownPhoto(id).description, field: "id")
        } catch LibraryError.unknownEdit(let id) {
            throw RPCError(.notFound, LibraryError.unknownEdit(id).description, field: "edit_id")
        }
    }
}
