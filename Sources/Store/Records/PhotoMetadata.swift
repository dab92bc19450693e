import Foundation
import Shared

/// What `photos.metadata` holds beyond the columns, one shape for every source; each writes what it
/// has and every part is optional: Unsplash its links and, from the details call, exif and location;
/// NASA its centre and media type; a local import the file's path and format.
public struct PhotoMetadata: Codable, Sendable, Equatable {
    public var links: [String: String]?
    public var exif: PhotoExif?
    public var location: Location?
    /// The details call has been made: exif, location (Unsplash) or renditions (NASA) are as complete
    /// as the service has them.
    public var details: Bool?
    public var center: String?
    public var mediaType: String?
    public var path: String?
    public var format: String?
    /// Each rendition's size in bytes, as its host answered a HEAD request (NASA's, at the details call).
    public var renditionBytes: [String: Int64]?
    /// The SHA-256 of a photo's original file (a local import's, a Google Photos pick's): its first 16
    /// hex digits name the account's Storage object other devices fetch it from.
    public var originalSha256: String?
    /// Why that original is not shared with the account's other devices (too large), in words.
    public var originalNote: String?

    enum CodingKeys: String, CodingKey {
        case links, exif, location, details, center, mediaType = "media_type", path, format, renditionBytes = "rendition_bytes"
        case originalSha256 = "original_sha256", originalNote = "original_note"
    }

    public init(
        links: [String: String]? = nil, exif: PhotoExif? = nil, location: Location? = nil, details: Bool? = nil,
        center: String? = nil, mediaType: String? = nil, path: String? = nil, format: String? = nil,
        originalSha256: String? = nil, originalNote: String? = nil
    ) {
        self.originalSha256 = originalSha256
        self.originalNote = originalNote
        self.links = links
        self.exif = exif
        self.location = location
        self.details = details
        self.center = center
        self.mediaType = mediaType
        self.path = path
        self.format = format
    }

    /// A photo's metadata as stored; nil for none or for JSON that is not this shape.
    public static func decode(_ json: String?) -> PhotoMetadata? {
        json.flatMap { try? JSONDecoder().decode(PhotoMetadata.self, from: Data($0.utf8)) }
    }

    /// The stored form: JSON with sorted keys.
    public var json: String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) }
    }

    public struct Location: Codable, Sendable, Equatable {
        public struct Position: Codable, Sendable, Equatable {
            public var latitude: Double?
            public var longitude: Double?
        }
        public var name: String?
        public var city: String?
        public var country: String?
        public var position: Position?
    }
}
