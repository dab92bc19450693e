import Control
import Editing
import Library
import Logging
import Shared
import Store
import Support
import Sync

/// Filters, previews and edits.
enum EditRoutes {
    static let signInToEdit = "sign in to save edits (splashctl login); they are kept with your account"

    static func register(into router: inout Router, state: DaemonState, counter: LibraryCounter, edits: EditCapability?, sync: SyncCapability?, logger: Logger) {
        router.register(FiltersListRequest.self) { _, _ in
            FiltersListResult(filters: FilterCatalog.all)
        }
        // Every method is registered whatever the daemon has; without the editor they say so.
        @Sendable func studio() throws(CapabilityMissing) -> EditStudio {
            guard let edits else { throw CapabilityMissing("editing") }
            return edits.studio
        }

        router.register(EditsPreviewRequest.self) { request, _ in
            let steps = try FilterCatalog.resolve(request.filters)
            let rendered = try await studio().preview(photoId: request.id, steps: steps, size: request.size ?? EditsPreviewRequest.defaultSize)
            return EditPreviewResult(jpeg: rendered.jpeg, width: rendered.width, height: rendered.height)
        }

        router.register(EditsCreateRequest.self) { request, _ in
            let account = try state.requireAccount(signInToEdit)
            let steps = try FilterCatalog.resolve(request.filters)
            let studio = try studio()
            let started = ContinuousClock.now
            let edit = try await studio.create(photoId: request.id, steps: steps, accountId: account)
            logger.info("edit saved", metadata: [
                "splashd_op": "edit", "splashd_photo": "\(request.id)", "splashd_edit": "\(edit.id)",
                "splashd_duration_ms": "\(started.millisecondsElapsed)",
            ])
            counter.refresh()
            state.bus.publish(.photoChanged(PhotoChange(id: request.id, change: .edited)))
            sync?.engine?.ring()
            return try studio.summary(of: edit)
        }

        router.register(EditsListRequest.self) { request, _ in
            let account = try state.requireAccount(signInToEdit)
            return EditsListResult(edits: try studio().list(accountId: account, photoId: request.id))
        }

        router.register(EditsDeleteRequest.self) { request, _ in
            let account = try state.requireAccount(signInToEdit)
            switch try studio().remove(editId: request.editId.lowercased(), accountId: account) {
            case .alreadyRemoved:
                return EditDeleteResult(editId: request.editId, changed: false, queued: false)
            case .removed(let queued, _, _):
                counter.refresh()
                if queued { sync?.engine?.ring() }
                return EditDeleteResult(editId: request.editId, changed: true, queued: queued)
            }
        }
    }
}
