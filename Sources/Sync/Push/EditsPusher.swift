#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB
import Library
import Shared
import Store
import Supabase
import Support

/// Sends edit ops, one at a time. A new edit: the rendering to Storage at `edits/<user id>/<edit id>.jpg`
/// (x-upsert, so a resend overwrites), then the photo's metadata and the edit row (upserts keyed by
/// id). A removal: the row's tombstone first — so other devices stop showing it even if what follows
/// fails — then the Storage object (already gone is fine).
///
/// A removal is final. An upload sent again after a kill or a cut (its first try may have landed) can
/// arrive after another device removed the edit: the server keeps the tombstone (a trigger, see
/// supabase/migrations), answers with it, and the object uploaded again is deleted here. The next pull
/// removes the edit on this device too.
struct EditsPusher: OutboxPusher {
    static let bucket = "edits"
    let backend: SupabaseBackend
    let store: Store
    let dataDirectory: String
    let entity = EditActions.entity
    let batchSize = 1
    let noun = "edits"

    /// An edit op read: its payload, and its photo's row for the server when it carries the photo
    /// (`PhotoPushRow`, as a like's photo goes).
    struct Ready: Sendable {
        var payload: EditActions.Payload
        var photo: String?
    }

    func read(_ batch: [OutboxEntry], db: Database) throws -> [OutboxReading<Ready>] {
        let photos = try PhotoPushRow.fetch(db, seqs: batch.compactMap(\.seq))
        return readEach(batch, decode: { op in
            Ready(payload: try EditActions.decodePayload(op.payload), photo: op.seq.flatMap { photos[$0] })
        }) { ready, op in
            let payload = ready.payload
            guard payload.deletedAt == nil else { return nil }
            guard let path = payload.path else { return "edit \(payload.editId) has no rendered file to upload" }
            guard access(dataDirectory + "/" + path, R_OK) == 0 else {
                return "the rendered file of edit \(payload.editId) is no longer on this machine (\(dataDirectory)/\(path)): "
                    + "\(String(cString: strerror(errno))); make the edit again (splashctl edit \(payload.photoId) ...), "
                    + "then splashctl queue drop \(op.opId.prefix(8))"
            }
            return nil
        }
    }

    /// The photos' rows the server took: those of new edits (a removal sends none).
    func sent(_ batch: [Ready], answer: Void, accountId: String, db: Database) throws -> PushSettled {
        let photos = batch.filter { $0.payload.deletedAt == nil }.compactMap(\.photo)
        try PhotoPushRow.recordHeld(db, accountId: accountId, rows: photos)
        return PushSettled()
    }

    /// `<user id>/<edit id>.jpg`, inside the bucket.
    static func objectName(accountId: String, editId: String) -> String {
        "\(accountId)/\(editId).jpg"
    }

    /// The server's row for an edit op, its rendering at `objectName`.
    static func row(_ payload: EditActions.Payload, accountId: String) -> ServerEditRow {
        ServerEditRow(
            id: payload.editId, photo_id: payload.photoId, pipeline: payload.pipeline,
            storage_path: objectName(accountId: accountId, editId: payload.editId),
            created_at: SupabaseTime.format(payload.createdAt), deleted_at: payload.deletedAt.map(SupabaseTime.format))
    }

    func push(_ batch: [Ready], token: String, accountId: String) async throws(BackendError) {
        for ready in batch {
            let payload = ready.payload
            let name = Self.objectName(accountId: accountId, editId: payload.editId)
            let row = Self.row(payload, accountId: accountId)
            if payload.deletedAt == nil {
                try await upload(payload, name: name, token: token)
                CrashPoint.editUploaded.reach()
                if let photo = ready.photo { try await LikesPusher.upsertPhotos([photo], backend: backend, token: token) }
                let kept = try await upsert(row, token: token)
                if kept.deletedAt != nil {
                    try await deleteObject(name, token: token)
                    continue
                }
                do {
                    try store.write { db in
                        try EditRecord.setStoragePath(db, name, editId: payload.editId)
                    }
                } catch {
                    // Only bookkeeping: the next pull writes the same value.
                }
            } else {
                _ = try await upsert(row, token: token)
                try await deleteObject(name, token: token)
            }
        }
    }

    private func upload(_ payload: EditActions.Payload, name: String, token: String) async throws(BackendError) {
        guard let path = payload.path else { throw .local("the edit has no rendered file") }
        let file = dataDirectory + "/" + path
        // Sent from the file as it goes out (a 24 MP edit is 15 MB): checked first, so that a file gone
        // is this op's own failure, not the network's.
        guard access(file, R_OK) == 0 else {
            throw .local("the rendered file of edit \(payload.editId) cannot be read (\(file)): \(String(cString: strerror(errno)))")
        }
        _ = try await backend.send(
            "POST", "/storage/v1/object/\(Self.bucket)/\(name)", uploading: file, bearer: token,
            headers: [("Content-Type", "image/jpeg"), ("x-upsert", "true")], timeout: .seconds(120))
    }

    /// The row as the server keeps it after the upsert: a removed edit keeps its tombstone.
    struct KeptRow: Decodable {
        var deletedAt: String?
        enum CodingKeys: String, CodingKey { case deletedAt = "deleted_at" }
    }

    private func upsert(_ row: ServerEditRow, token: String) async throws(BackendError) -> KeptRow {
        let encoder = JSONEncoder()
        let body: [UInt8]
        do {
            body = Array(try encoder.encode([row]))
        } catch {
            throw .local("cannot encode the edit: \(error)")
        }
        let answer = try await backend.send(
            "POST", "/rest/v1/edits", query: [("on_conflict", "id"), ("select", "deleted_at")], body: body, bearer: token,
            headers: [("Prefer", "resolution=merge-duplicates,return=representation")])
        let rows = try SupabaseBackend.decode([KeptRow].self, from: answer)
        guard let kept = rows.first else { throw .local("the server kept no row for edit \(row.id)") }
        return kept
    }

    private func deleteObject(_ name: String, token: String) async throws(BackendError) {
        do {
            _ = try await backend.send("DELETE", "/storage/v1/object/\(Self.bucket)/\(name)", bearer: token)
        } catch {
            // Storage answers 400 or 404 "not_found" for an object already gone: the goal is met.
            guard let status = error.serverError?.status, status == 404 || status == 400 else { throw error }
        }
    }
}
