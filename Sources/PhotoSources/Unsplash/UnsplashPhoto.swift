import Foundation
import Shared
import Store

/// A photo as Unsplash's API describes it (reference/photo-apis.md). Only `id` is required; everything
/// else may be missing or null and is decoded leniently.
struct UnsplashPhoto: Decodable {
    struct User: Decodable {
        var username: String?
        var name: String?
        var links: [String: String]?
    }

    struct Tag: Decodable { var title: String? }

    /// `GET /photos/<id>` only. Every field may be null; numbers may arrive as strings.
    struct Exif: Codable {
        var make: String?
        var model: String?
        var exposure_time: String?
        var aperture: String?
        var focal_length: String?
        var iso: Int?

        enum CodingKeys: String, CodingKey { case make, model, exposure_time, aperture, focal_length, iso }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            make = try? c.decodeIfPresent(String.self, forKey: .make)
            model = try? c.decodeIfPresent(String.self, forKey: .model)
            exposure_time = Self.text(c, .exposure_time)
            aperture = Self.text(c, .aperture)
            focal_length = Self.text(c, .focal_length)
            iso = (try? c.decodeIfPresent(Int.self, forKey: .iso)) ?? Self.text(c, .iso).flatMap { Int($0) }
        }

        private static func text(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) -> String? {
            if let text = try? c.decodeIfPresent(String.self, forKey: key) { return text }
            if let number = try? c.decodeIfPresent(Double.self, forKey: key) {
                return number == number.rounded() ? String(Int(number)) : String(number)
            }
            return nil
        }
    }

    struct Location: Codable {
        struct Position: Codable {
            var latitude: Double?
            var longitude: Double?
        }
        var name: String?
        var city: String?
        var country: String?
        var position: Position?
    }

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
    var exif: Exif?
    var location: Location?

    /// What `photos.metadata` keeps beyond the columns: links, and (from the details call) exif and location.
    struct Metadata: Codable {
        var links: [String: String]?
        var exif: Exif?
        var location: Location?
        /// The details call has been made: exif and location are as complete as Unsplash has them.
        var details: Bool?
    }

    func record(fetchedAt: Date, details: Bool = false) -> PhotoRecord {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let urlsJSON = urls.flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        let metadata = (try? encoder.encode(Metadata(links: links, exif: exif, location: location, details: details ? true : nil)))
            .map { String(decoding: $0, as: UTF8.self) }
        return PhotoRecord(
            source: PhotoSource.unsplash.rawValue, remoteId: id, title: description ?? alt_description,
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
