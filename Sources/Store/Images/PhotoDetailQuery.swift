import Foundation
import GRDB
import Shared

/// The store's part of `photos.show`: the photo's row and whether `accountId` likes it. Files and
/// download state are filled in by the caller.
public enum PhotoDetailQuery {
    public static func fetch(_ db: Database, id: String, accountId: String) throws -> PhotoDetail? {
        guard let photo = try PhotoRecord.fetchOne(db, key: id) else { return nil }
        let likedAt = try LikeRecord.find(db, accountId: accountId, photoId: id).flatMap { $0.isLiked ? $0.likedAt : nil }
        var urls: [String: String] = [:]
        if let json = photo.urls, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] {
            for (key, value) in object { if let url = value as? String { urls[key] = url } }
        }
        let metadata = PhotoMetadata.decode(photo.metadata)
        let source = photo.source
        let exif = metadata?.exif
        let place = metadata?.location.flatMap { location -> PhotoLocation? in
            let name = location.name ?? [location.city, location.country].compactMap { $0 }.joined(separator: ", ")
            guard !name.isEmpty || location.position?.latitude != nil else { return nil }
            return PhotoLocation(name: name.isEmpty ? nil : name, latitude: location.position?.latitude, longitude: location.position?.longitude)
        }
        var detail = PhotoDetail(
            id: photo.id, source: source, title: photo.title, description: photo.description,
            author: photo.authorName, width: photo.width, height: photo.height, color: photo.color, urls: urls,
            fetchedAt: photo.fetchedAt, likedAt: likedAt, dismissedAt: photo.dismissedAt,
            tags: photo.tags.split(separator: " ").map(String.init), authorUrl: photo.authorUrl,
            pageUrl: metadata?.links?["html"], createdAt: photo.createdAt, exif: exif, location: place,
            attribution: attribution(source: source, author: photo.authorName, metadata: metadata))
        detail.originalNote = metadata?.originalNote
        let renditions = renditions(urls, bytes: metadata?.renditionBytes ?? [:], width: photo.width, height: photo.height)
        detail.renditions = renditions.isEmpty ? nil : renditions
        return detail
    }

    /// The order renditions are listed in, largest first; others (unknown names) after them.
    static let renditionOrder = ["orig", "raw", "full", "large", "regular", "medium", "small", "thumb"]

    /// Links in `urls` that are not images (NASA's manifests).
    static let notImages: Set<String> = ["metadata", "collection"]

    /// Every image URL of the photo as a rendition, largest first: bytes where the host told them, and
    /// pixels where the URL asks for a width (`w=1080`) and the photo's own shape gives the height. A
    /// URL under two names (NASA's search calls one of its renditions "regular") is listed once, under
    /// the name its size was asked by.
    static func renditions(_ urls: [String: String], bytes: [String: Int64], width: Int?, height: Int?) -> [PhotoRendition] {
        var named: [String: String] = [:]  // url → variant
        for (variant, url) in urls where !notImages.contains(variant) {
            if let other = named[url], bytes[other] != nil || (bytes[variant] == nil && other < variant) { continue }
            named[url] = variant
        }
        return named.map { url, variant in
            var rendition = PhotoRendition(variant: variant, url: url, bytes: bytes[variant])
            if let asked = URLComponents(string: url)?.queryItems?.first(where: { $0.name == "w" })?.value.flatMap(Int.init), asked > 0 {
                rendition.width = width.map { min($0, asked) } ?? asked
                if let width, let height, width > 0, let scaled = rendition.width {
                    rendition.height = Int((Double(height) * Double(scaled) / Double(width)).rounded())
                }
            } else if variant == "raw" || variant == "orig" {
                (rendition.width, rendition.height) = (width, height)
            }
            return rendition
        }.sorted { a, b in
            let (x, y) = (renditionOrder.firstIndex(of: a.variant) ?? renditionOrder.count, renditionOrder.firstIndex(of: b.variant) ?? renditionOrder.count)
            return x != y ? x < y : a.variant < b.variant
        }
    }

    /// The credit each source asks for (Unsplash's guidelines: "Photo by NAME on Unsplash").
    static func attribution(source: PhotoSource, author: String?, metadata: PhotoMetadata?) -> String? {
        switch source {
        case .unsplash: author.map { "Photo by \($0) on Unsplash" } ?? "Photo on Unsplash"
        case .nasa: "Image courtesy of " + (author ?? "NASA")
        case .local, .google: nil
        }
    }
}
