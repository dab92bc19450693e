import Foundation
import GRDB
import Shared
import Store

/// The original files of local photos (imported from a folder) that an account likes or edits go to the
/// account's Storage (`originals/<user id>/<hash>`), so its other devices have the photo itself. Queued
/// in the same transaction as the like or the edit (principle 1), once per photo while one waits.
public enum OriginalUploads {
    public static let entity = "original"

    /// What the outbox carries: the photo and where its file is on this machine.
    public struct Payload: Codable, Sendable, Equatable {
        public var photoId: String
        /// Absolute: a local photo's file stays where it was imported from.
        public var path: String
    }

    /// Queues the upload of `photo`'s original for `accountId` when the photo is a local one with its
    /// file here and no upload of it waits already. The guest's likes and edits upload nothing.
    static func queueIfLocal(_ photo: PhotoRecord, accountId: String, db: Database, now: Date) throws {
        guard photo.source == PhotoSource.local.rawValue, accountId != GuestRows.accountId else { return }
        guard try OutboxStore.pending(db, accountId: accountId, entity: entity, entityId: photo.id).isEmpty,
              try OutboxStore.inFlightCount(db, accountId: accountId, entity: entity, entityId: photo.id) == 0,
              let file = try PhotoFileStore.files(db, photoId: photo.id).first(where: { $0.inLibrary })
        else { return }
        let op = OutboxEntry(
            accountId: accountId, entity: entity, entityId: photo.id, op: "upload",
            payload: try OutboxPayload.encode(Payload(photoId: photo.id, path: file.path)), now: now)
        try op.insert(db)
    }

    public static func decodePayload(_ json: String) throws -> Payload {
        try OutboxPayload.decode(Payload.self, from: json)
    }
}
