import Foundation
import Store

/// What a queued like or edit carries of its photo, so that the account's other devices can show it:
/// the fields of the server's `photos` row (`PhotoPushRow` builds that row from these, by SQLite, in
/// the transaction that takes the batch). Not `PhotoMetadata`, which is the store's `photos.metadata`.
public struct PhotoRowFields: Codable, Sendable, Equatable {
    public var title: String?
    public var description: String?
    public var authorName: String?
    public var authorUrl: String?
    public var color: String?
    public var width: Int?
    public var height: Int?
    public var urls: String?
    /// The SHA-256 of the photo's original, when it is a file of the account's (Storage has it).
    public var originalSha256: String?
    /// Why that original is not shared (too large).
    public var originalNote: String?
}

extension PhotoRowFields {
    /// The fields of `photo` as the store holds them.
    init(_ photo: PhotoRecord) {
        let metadata = PhotoMetadata.decode(photo.metadata)
        self.init(
            title: photo.title, description: photo.description, authorName: photo.authorName, authorUrl: photo.authorUrl,
            color: photo.color, width: photo.width, height: photo.height, urls: photo.urls,
            originalSha256: metadata?.originalSha256, originalNote: metadata?.originalNote)
    }
}
