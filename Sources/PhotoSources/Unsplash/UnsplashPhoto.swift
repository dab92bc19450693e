import Foundation
import Shared
import Store

/// A photo as Unsplash's API describes it (`GET /photos/:id`, search results). Only `id` is required; everything
/// else may be missing or null and is decoded leniently.
struct UnsplashPhoto: Decodable {
    struct User: Decodable {
        var username: String?
        var name: String?
        var links: [String: String]?
    }

    struct Tag: Decodable { var title: String? }

    var id: String
    var created_at: String?
    var updated_at: String?
    var width: Int?
    var height: Int?
    var color: String?
    var blur_hash: String?
    var description: String?
    var alt_description: String?
    var urls: [String: String]?
    var links: [String: String]?
    var user: User?
    var tags: [Tag]?
    /// `GET /photos/<id>` only.
    var exif: PhotoExif?
    var location: PhotoMetadata.Location?

    func record(fetchedAt: Date, details: Bool = false) -> PhotoRecord {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let urlsJSON = urls.flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        let metadata = PhotoMetadata(links: links, exif: exif, location: location, details: details ? true : nil).json
        return PhotoRecord(
            source: .unsplash, remoteId: id, title: description ?? alt_description,
            description: description, altDescription: alt_description, tags: (tags ?? []).compactMap(\.title),
            authorName: user?.name, authorUsername: user?.username, authorUrl: user?.links?["html"],
            width: width, height: height, color: color, colorBucket: color.flatMap { ColorBucket(hex: $0)?.rawValue },
            blurHash: blur_hash, urls: urlsJSON, metadata: metadata, createdAt: created_at.flatMap(ISO8601.parse),
            remoteUpdatedAt: updated_at.flatMap(ISO8601.parse), fetchedAt: fetchedAt)
    }
}

struct UnsplashSearchPage: Decodable {
    var total: Int?
    var total_pages: Int?
    var results: [UnsplashPhoto]
}

/// ISO-8601 with or without fractional seconds.
enum ISO8601 {
    static func parse(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }
}
