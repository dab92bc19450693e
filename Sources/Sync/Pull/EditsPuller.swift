#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB
import HTTP
import Library
import Shared
import Store
import Supabase
import Support

struct EditingFileError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Pulls the account's edits: rows since the cursor are applied (the server wins unless a local op on
/// the same edit waits), tombstones remove the rendering here, and every live edit whose rendering
/// is not on this machine is downloaded from Storage. The edit's photo becomes a library photo, so
/// the image queue brings its original too.
struct EditsPuller: TablePuller {
    let backend: SupabaseBackend
    let store: Store
    let dataDirectory: String
    let pageSize = 200

    static let table = "edits"
    static let entity = EditActions.entity
    static let columns = ServerEditRow.columns
    static let rereadColumn = "id"

    /// Every page since the cursor, the rows passed over earlier, then the renderings not here yet.
    func pull(accountId: String, token: String, gate: SyncGate) async throws(BackendError) -> PullApplied {
        var applied = try await pullTable(accountId: accountId, device: store.deviceId, token: token, gate: gate)
        applied.changes += try await downloadMissing(accountId: accountId, token: token)
        return applied
    }

    static func photoId(of row: ServerEditRow) -> String { row.photo_id }

    static func cursor(after row: ServerEditRow) -> SyncCursor? {
        row.updated_at.map { SyncCursor(updatedAt: $0, lastID: row.id) }
    }

    /// Renderings of edits removed elsewhere leave this machine once their rows say so.
    func committed(_ page: AppliedPage) {
        for path in page.obsoleteFiles { unlink(dataDirectory + "/" + path) }
    }

    /// Applies one page in one transaction and moves the cursor past it (`moveCursor`; not for rows
    /// read again by key). The page carries the renderings (relative paths) to delete once the
    /// transaction is committed.
    static func applyPage(
        _ rows: [ServerEditRow], accountId: String, fetchStarted: Date, moveCursor: Bool, db: Database
    ) throws -> AppliedPage {
        let now = Date()
        var changes: [PhotoChange] = []
        var removed: [String] = []
        for row in rows {
            if moveCursor, let cursor = cursor(after: row) {
                try cursor.save(db, accountId: accountId, table: table)
            }
            let id = row.id.lowercased()
            // The person's newer change here wins until it is sent; the row is read again after (PullRereads).
            if try PullRereads.opWaiting(db, accountId: accountId, entity: EditActions.entity, entityId: id) {
                try PullRereads.remember(db, accountId: accountId, table: table, entityId: id)
                continue
            }
            let existing = try EditRecord.fetchOne(db, key: id)
            if let existing, existing.accountId != accountId { continue }
            if let existing, existing.updatedAt > fetchStarted {
                try PullRereads.remember(db, accountId: accountId, table: table, entityId: id)
                continue
            }
            guard try ServerPhotos.ensureBare(row.photo_id, db: db, now: now) else { continue }
            let pipeline = String(decoding: try JSONEncoder().encode(row.pipeline), as: UTF8.self)
            if let deletedAt = row.deleted_at.flatMap(SupabaseTime.parse) {
                guard let existing, existing.deletedAt == nil else { continue }
                var record = existing
                record.deletedAt = deletedAt
                record.updatedAt = now
                if let path = record.path { removed.append(path) }
                record.path = nil
                try record.update(db)
                try PhotoFileStore.removeEdit(db, photoId: record.photoId, editId: id)
                changes.append(PhotoChange(id: record.photoId, change: .updated))
            } else {
                let record = EditRecord(
                    id: id, accountId: accountId, photoId: row.photo_id, pipeline: pipeline,
                    path: existing?.deletedAt == nil ? existing?.path : nil, storagePath: row.storage_path,
                    createdAt: SupabaseTime.parse(row.created_at) ?? now, updatedAt: now)
                try record.save(db)
                if existing == nil || existing?.deletedAt != nil { changes.append(PhotoChange(id: row.photo_id, change: .edited)) }
            }
        }
        return AppliedPage(changes: changes, obsoleteFiles: removed)
    }

    /// Downloads the renderings of live edits that are not on this machine, each written beside its
    /// original atomically and recorded with its checksum. A failure is left for the next pull.
    private func downloadMissing(accountId: String, token: String) async throws(BackendError) -> [PhotoChange] {
        let missing: [(EditRecord, PhotoRecord)]
        do {
            missing = try store.read { db in
                try EditRecord.withoutRendering(db, accountId: accountId, limit: 100).compactMap { edit in
                    try PhotoRecord.fetchOne(db, key: edit.photoId).map { (edit, $0) }
                }
            }
        } catch {
            throw .local("cannot read the store: \(error)")
        }
        var changes: [PhotoChange] = []
        for (edit, photo) in missing {
            guard let name = edit.storagePath else { continue }
            let response = try await backend.send(
                "GET", "/storage/v1/object/authenticated/\(EditsPusher.bucket)/\(name)", bearer: token, timeout: .seconds(120))
            let body = response.body
            guard ImageFormat.fileExtension(of: body) == "jpg" else {
                throw .malformed(status: response.status, detail: "Storage sent something that is not a JPEG for edit \(edit.id)")
            }
            let relative = ImagePaths.edit(source: photo.source.rawValue, remoteId: photo.remoteId, editId: edit.id)
            let final = dataDirectory + "/" + relative
            // Two pulls may download the same edit at once (sync.now beside the schedule): each writes
            // its own staged copy, and only the one that records the row renames it into place.
            let staged = final + ".pulled-" + UUID().uuidString.prefix(8).lowercased()
            do {
                try EditStudio.writeAtomically(Data(body), to: staged)
                // The bytes in hand, not the file read back (the downloads' hash is taken the same way).
                let checksum = FileDigest.hex(SHA256.hash(body))
                let recorded = try store.write { db -> Bool in
                    // Removed or downloaded meanwhile: this copy is not wanted.
                    guard var current = try EditRecord.fetchOne(db, key: edit.id), current.deletedAt == nil, current.path == nil else { return false }
                    guard rename(staged, final) == 0 else {
                        throw EditingFileError(message: "cannot move the edit into the library: \(String(cString: strerror(errno)))")
                    }
                    current.path = relative
                    try current.update(db)
                    let now = Date()
                    try PhotoFileStore.record(db, PhotoFileStore.File(
                        photoId: edit.photoId, variant: "edit:\(edit.id)", path: relative, inLibrary: true,
                        bytes: Int64(body.count), checksum: checksum, createdAt: now, lastAccessAt: now))
                    return true
                }
                if recorded {
                    changes.append(PhotoChange(id: edit.photoId, change: .edited))
                } else {
                    unlink(staged)
                }
            } catch {
                unlink(staged)
                throw .local("cannot save edit \(edit.id): \(error)")
            }
        }
        return changes
    }
}
