import Shared
import Store

extension EditStudio {
    /// The account's live edits, of one photo or of all, newest first, as clients see them.
    public func list(accountId: String, photoId: String?) throws -> [EditSummary] {
        try store.read { db in try EditRecord.live(db, accountId: accountId, photoId: photoId) }.map(summary(of:))
    }

    /// An edit as clients see it, with its upload state read from the outbox: `rejected` if an op of
    /// it was refused, `pending` while one waits, else `synced`.
    public func summary(of edit: EditRecord) throws -> EditSummary {
        let upload = try store.read { db in
            try EditUploadQuery.fetch(db, editId: edit.id, photoId: edit.photoId, entity: EditActions.entity)
        }
        let state = edit.accountId == GuestRows.accountId
            ? "guest" : upload.opStates.contains("rejected") ? "rejected" : (upload.opStates.isEmpty ? "synced" : "pending")
        return EditSummary(
            editId: edit.id, photoId: edit.photoId, filters: (try? EditActions.decodePipeline(edit.pipeline)) ?? [],
            path: edit.path.map { dataDirectory + "/" + $0 }, bytes: upload.bytes, state: state, createdAt: edit.createdAt)
    }
}
