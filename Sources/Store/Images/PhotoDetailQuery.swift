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
        let metadata = PhotoMetadata.decode(photo.metadata)
        let source = PhotoSource(rawValue: photo.source) ?? .local
        let exif = metadata?.exif.map {
            PhotoExif(make: $0.make, model: $0.model, exposureTime: $0.exposureTime, aperture: $0.aperture, focalLength: $0.focalLength, iso: $0.iso)
        }
        let place = metadata?.location.flatMap { location -> PhotoLocation? in
            let name = location.name ?? [location.city, location.country].compactMap { $0 }.joined(separator: ", ")
            guard !name.isEmpty || location.position?.latitude != nil else { return nil }
            return PhotoLocation(name: name.isEmpty ? nil : name, latitude: location.position?.latitude, longitude: location.position?.longitude)
        }
        return PhotoDetail(
            id: photo.id, source: source, title: photo.title, description: photo.description,
            author: photo.authorName, width: photo.width, height: photo.height, color: photo.color, urls: urls,
            fetchedAt: photo.fetchedAt, likedAt: likedAt, dismissedAt: photo.dismissedAt,
            tags: photo.tags.split(separator: " ").map(String.init), authorUrl: photo.authorUrl,
            pageUrl: metadata?.links?["html"], createdAt: photo.createdAt, exif: exif, location: place,
            attribution: attribution(source: source, author: photo.authorName, metadata: metadata))
    }

    /// The credit each source asks for (Unsplash's guidelines: "Photo by NAME on Unsplash").
    static func attribution(source: PhotoSource, author: String?, metadata: PhotoMetadata?) -> String? {
        switch source {
        case .unsplash: author.map { "Photo by \($0) on Unsplash" } ?? "Photo on Unsplash"
        case .nasa: "Image courtesy of " + (author ?? "NASA")
        case .local: nil
        }
    }
}
