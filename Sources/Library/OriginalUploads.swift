import Foundation
import GRDB
import Shared
import Store

/// The original files of photos that exist only as a file — imported from a folder (`local:`) or picked
/// from Google Photos (`google:`) — go to the account's Storage when the account likes or edits them
/// (`originals/<user id>/<the first 16 hex digits of the file's SHA-256>`), so its other devices have the
/// photo itself; the same file from two devices, or from a folder and from Google, is one object.
/// Queued in the same transaction as the like or the edit (principle 1), once per photo while one waits.
public enum OriginalUploads {
    public static let entity = OutboxEntry.Entity.original

    /// What the outbox carries: the photo, where its file is on this machine, and its SHA-256.
    public struct Payload: Codable, Sendable, Equatable {
        public var photoId: String
        /// Absolute for a file imported from a folder (it stays where it was); relative to the data
        /// directory for a Google Photos pick.
        public var path: String
        /// The file's SHA-256 (absent from ops queued before it was carried: the local id's hash then).
        public var sha256: String?
    }

    /// Queues the upload of `photo`'s original for `accountId` when the photo is one whose only copy is
    /// a file here and no upload of it waits already, and writes the file's SHA-256 into the photo's
    /// metadata (which the like's or edit's photo row carries, so another device knows which object to
    /// fetch). Returns the photo as it is now. The guest's likes and edits upload nothing.
    static func queue(_ photo: PhotoRecord, accountId: String, db: Database, now: Date) throws -> PhotoRecord {
        guard photo.source.isFileHere,
              accountId != GuestRows.accountId,
              let file = try PhotoFileStore.files(db, photoId: photo.id).first(where: { $0.inLibrary && $0.variant == "orig" })
        else { return photo }
        var photo = photo
        if PhotoMetadata.decode(photo.metadata)?.originalSha256 == nil, let checksum = file.checksum {
            try changeMetadata(of: &photo, db: db) { $0.originalSha256 = checksum }
        }
        let metadata = PhotoMetadata.decode(photo.metadata)
        guard metadata?.originalNote == nil,
              try OutboxStore.pending(db, accountId: accountId, entity: entity, entityId: photo.id).isEmpty,
              try OutboxStore.inFlightCount(db, accountId: accountId, entity: entity, entityId: photo.id) == 0
        else { return photo }
        let op = OutboxEntry(
            accountId: accountId, entity: entity, entityId: photo.id, op: .upload,
            payload: try OutboxPayload.encode(Payload(photoId: photo.id, path: file.path, sha256: metadata?.originalSha256)), now: now)
        try op.insert(db)
        return photo
    }

    /// The original of `photoId` stays on this machine: why, kept in its metadata (shown by `photos
    /// show` and counted by status) and sent with its row.
    public static func keepHere(_ db: Database, photoId: String, note: String) throws {
        guard var photo = try PhotoRecord.fetchOne(db, key: photoId) else { return }
        try changeMetadata(of: &photo, db: db) { $0.originalNote = note }
    }

    private static func changeMetadata(of photo: inout PhotoRecord, db: Database, _ change: (inout PhotoMetadata) -> Void) throws {
        var metadata = PhotoMetadata.decode(photo.metadata) ?? PhotoMetadata()
        change(&metadata)
        photo.metadata = metadata.json
        try photo.update(db)
    }

    public static func decodePayload(_ json: String) throws -> Payload {
        try OutboxPayload.decode(Payload.self, from: json)
    }
}
