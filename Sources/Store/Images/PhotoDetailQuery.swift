import Foundation
import GRDB
import Shared

/// The store's part of `photos.show`: the photo's row and whether `accountId` likes it. Files and
/// download state are filled in by the caller.
public enum PhotoDetailQuery {
    public static func fetch(_ db: Database, id: String, accountId: String) throws -> PhotoDetail? {
        guard let photo = try PhotoRecord.fetchOne(db, key: id) else { return nil }
        let likedAt = try Date.fetchOne(db, sql: """
            SELECT liked_at FROM likes WHERE account_id = ? AND photo_id = ? AND deleted_at IS NULL
            """, arguments: [accountId, id])
        var urls: [String: String] = [:]
        if let json = photo.urls, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] {
            for (key, value) in object { if let url = value as? String { urls[key] = url } }
        }
        return PhotoDetail(
            id: photo.id, source: PhotoSource(rawValue: photo.source) ?? .local, title: photo.title, description: photo.description,
            author: photo.authorName, width: photo.width, height: photo.height, color: photo.color, urls: urls,
            fetchedAt: photo.fetchedAt, likedAt: likedAt, dismissedAt: photo.dismissedAt)
    }
}
