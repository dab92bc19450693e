import Foundation
import GRDB
import Shared
import Store

/// Saving and removing edits in the store: each change written with its outbox op in the same
/// transaction (principle 1). The rendering itself is EditStudio's; this only records it.
public struct EditActions: Sendable {
    public static let entity = OutboxEntry.Entity.edit
    public let store: Store

    public init(store: Store) {
        self.store = store
    }

    /// What the outbox carries for an edit: the server row's desired state, where the rendered file
    /// is on this machine (to upload), and the photo's metadata so other devices can show it.
    public struct Payload: Codable, Sendable, Equatable {
        public var editId: String
        public var photoId: String
        public var pipeline: [FilterStep]
        /// Relative to the data directory.
        public var path: String?
        public var createdAt: Date
        public var deletedAt: Date?
        /// No op for this edit has reached the server: removing it before it is sent needs nothing there.
        public var wasNew: Bool
        public var photo: PhotoRowFields?
    }

    /// Records a rendered edit already in place at `path` (relative to the data directory).
    /// `place` runs inside the transaction, last: the studio renames the staged rendering into place
    /// there, so a failed rename records nothing.
    public func record(
        editId: String, photoId: String, accountId: String, pipeline: [FilterStep], path: String, bytes: Int64,
        checksum: String, now: Date = Date(), place: @Sendable () throws -> Void = {}
    ) throws -> EditRecord {
        try store.write { db in
            guard let photo = try PhotoRecord.fetchOne(db, key: photoId) else { throw LibraryError.unknownPhoto(photoId) }
            let edit = EditRecord(
                id: editId, accountId: accountId, photoId: photoId, pipeline: try OutboxPayload.encode(pipeline), path: path,
                storagePath: nil, createdAt: now, updatedAt: now)
            try edit.insert(db)
            try PhotoFileStore.record(db, PhotoFileStore.File(
                photoId: photoId, variant: "edit:\(editId)", path: path, inLibrary: true, bytes: bytes, checksum: checksum,
                createdAt: now, lastAccessAt: now))
            // The guest's edits stay on this machine until an account adopts them.
            if accountId != GuestRows.accountId { try Self.queueUpload(of: edit, photo: photo, db: db, now: now) }
            try place()
            return edit
        }
    }

    /// Queues the upload of a new edit (its rendering and its row) for its account.
    static func queueUpload(of edit: EditRecord, photo: PhotoRecord, db: Database, now: Date) throws {
        // A photo whose only copy is a file here sends that file too (its row then names it).
        let photo = try OriginalUploads.queue(photo, accountId: edit.accountId, db: db, now: now)
        let payload = Payload(
            editId: edit.id, photoId: edit.photoId, pipeline: try decodePipeline(edit.pipeline), path: edit.path, createdAt: edit.createdAt,
            deletedAt: nil, wasNew: true, photo: PhotoRowFields(photo))
        let op = OutboxEntry(
            accountId: edit.accountId, entity: entity, entityId: edit.id, op: .upsert, payload: try OutboxPayload.encode(payload), now: now)
        try op.insert(db)
    }

    public enum Removal: Sendable, Equatable {
        /// Tombstoned; `queued` says whether the server must hear of it. `path` is the rendered file to
        /// remove now that no row points at it. `uploadInFlight`: the edit's upload was being sent; it
        /// is superseded by the removal queued behind it and dropped when it comes back.
        case removed(queued: Bool, path: String?, uploadInFlight: Bool)
        case alreadyRemoved
    }

    /// Tombstones an edit of `accountId`. The removal supersedes any upload of the edit still queued:
    /// that upload is dropped. Only an edit none of whose ops has ever left this machine (never
    /// attempted, nothing in flight) is removed without telling the server; an upload whose delivery is
    /// uncertain (attempted, or in flight now) may have landed, so the removal is queued and wins by
    /// order (docs/architecture.md, "Coalescing").
    public func remove(editId: String, accountId: String, now: Date = Date()) throws -> Removal {
        try store.write { db in
            guard var edit = try EditRecord.fetchOne(db, key: editId), edit.accountId == accountId else {
                throw LibraryError.unknownEdit(editId)
            }
            guard edit.deletedAt == nil else { return .alreadyRemoved }
            let pending = try OutboxStore.pending(db, accountId: accountId, entity: Self.entity, entityId: editId)
            let pendingPayloads = try pending.map { try Self.decodePayload($0.payload) }
            let inFlight = try OutboxStore.inFlightCount(db, accountId: accountId, entity: Self.entity, entityId: editId)
            let path = edit.path
            edit.deletedAt = now
            edit.updatedAt = now
            edit.path = nil
            try edit.update(db)
            try PhotoFileStore.removeEdit(db, photoId: edit.photoId, editId: editId)
            for op in pending { try op.delete(db) }
            let neverLeft = accountId == GuestRows.accountId
                || (inFlight == 0 && !pending.isEmpty && pending.allSatisfy { $0.attempts == 0 } && pendingPayloads.first?.wasNew == true)
            if neverLeft {
                return .removed(queued: false, path: path, uploadInFlight: false)
            }
            let payload = Payload(
                editId: editId, photoId: edit.photoId, pipeline: try Self.decodePipeline(edit.pipeline), path: nil,
                createdAt: edit.createdAt, deletedAt: now, wasNew: false, photo: nil)
            let op = OutboxEntry(
                accountId: accountId, entity: Self.entity, entityId: editId, op: .delete, payload: try OutboxPayload.encode(payload), now: now)
            try op.insert(db)
            return .removed(queued: true, path: path, uploadInFlight: inFlight > 0)
        }
    }

    public static func decodePipeline(_ json: String) throws -> [FilterStep] {
        try JSONDecoder().decode([FilterStep].self, from: Data(json.utf8))
    }

    public static func decodePayload(_ json: String) throws -> Payload {
        try OutboxPayload.decode(Payload.self, from: json)
    }
}
