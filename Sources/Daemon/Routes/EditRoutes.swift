import Control
import Editing
import Library
import Shared

/// Filters, previews and edits. Signed out, edits are the guest's, kept here until an account adopts them.
enum EditRoutes {
    static func register(into router: inout Router, state: DaemonState, edits: EditCapability?) {
        router.register(FiltersListRequest.self) { _, _ in
            FiltersListResult(filters: FilterCatalog.all)
        }
        // Every method is registered whatever the daemon has; without the editor they say so.
        @Sendable func capability() throws(CapabilityMissing) -> EditCapability {
            guard let edits else { throw CapabilityMissing("editing") }
            return edits
        }

        router.register(EditsPreviewRequest.self) { request, _ in
            let steps = try FilterCatalog.resolve(request.filters)
            return try await capability().preview(
                photoId: request.id, steps: steps, size: request.size ?? EditsPreviewRequest.defaultSize, terminal: request.terminal)
        }

        router.register(EditsCreateRequest.self) { request, _ in
            let account = state.actingAccount
            let steps = try FilterCatalog.resolve(request.filters)
            return try await capability().create(photoId: request.id, steps: steps, accountId: account)
        }

        router.register(EditsListRequest.self) { request, _ in
            let account = state.actingAccount
            return EditsListResult(edits: try capability().studio.list(accountId: account, photoId: request.id))
        }

        router.register(EditsDeleteRequest.self) { request, _ in
            let account = state.actingAccount
            return try capability().remove(editId: request.editId, accountId: account)
        }
    }
}
