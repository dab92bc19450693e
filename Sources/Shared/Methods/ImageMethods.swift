import Foundation

/// `photos.show`: one photo's metadata and its files on this machine.
public struct PhotosShowRequest: RPCRequest {
    public typealias Result = PhotoDetail
    public static let method = "photos.show"
    public static let summary = "Shows one photo: its metadata, whether it is liked, and its files (where, how big, library or cache)."
    public static let parameters = [ParameterDoc("id", "string", required: true, "The photo id, e.g. unsplash:Dwu85P9SOIk.")]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound]
    public static let example = PhotosShowRequest(id: "unsplash:Dwu85P9SOIk")
    public static let resultExample = PhotoDetail(
        id: "unsplash:Dwu85P9SOIk", source: .unsplash, title: "Fog over the harbour", author: "Ana Lima", width: 4000, height: 3000,
        color: "#2C5A8C", urls: ["regular": "https://images.unsplash.com/photo-1?w=1080", "thumb": "https://images.unsplash.com/photo-1?w=200"],
        fetchedAt: Date(timeIntervalSince1970: 1_795_000_000), likedAt: Date(timeIntervalSince1970: 1_795_000_100),
        files: [PhotoFileInfo(
            variant: "regular", path: "/home/ana/.local/share/splashd/library/unsplash/Dwu85P9SOIk.regular.jpg", bytes: 284_113,
            location: .library, present: true, checksum: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            createdAt: Date(timeIntervalSince1970: 1_795_000_110), lastAccessAt: Date(timeIntervalSince1970: 1_795_000_110))],
        download: nil, tags: ["harbour", "fog", "lisbon"], authorUrl: "https://unsplash.com/@analima",
        pageUrl: "https://unsplash.com/photos/Dwu85P9SOIk", createdAt: Date(timeIntervalSince1970: 1_700_000_000),
        exif: PhotoExif(make: "FUJIFILM", model: "X-T4", exposureTime: "1/250", aperture: "5.6", focalLength: "23", iso: 160),
        location: PhotoLocation(name: "Lisbon, Portugal", latitude: 38.7223, longitude: -9.1393),
        attribution: "Photo by Ana Lima on Unsplash", duplicates: [])
    public var id: String
    public init(id: String) { self.id = id }
    public func validate() throws(RPCError) { try PhotoID.validate(id) }
}

/// Camera settings: in `photos.show`, in the store's `photos.metadata`, and as Unsplash's
/// `GET /photos/<id>` gives them — one type for the three. Written with snake_case keys (the wire's own
/// key conversion leaves them so). Read leniently: every field may be missing or null, numbers may
/// arrive as strings and strings as numbers, and a key may come snake_case (the store, Unsplash) or
/// already converted (a decoder that converts from snake_case, as the protocol's does).
public struct PhotoExif: Codable, Sendable, Equatable {
    public var make: String?
    public var model: String?
    public var exposureTime: String?
    public var aperture: String?
    public var focalLength: String?
    public var iso: Int?

    public init(make: String? = nil, model: String? = nil, exposureTime: String? = nil, aperture: String? = nil, focalLength: String? = nil, iso: Int? = nil) {
        self.make = make
        self.model = model
        self.exposureTime = exposureTime
        self.aperture = aperture
        self.focalLength = focalLength
        self.iso = iso
    }

    enum CodingKeys: String, CodingKey {
        case make, model, exposureTime = "exposure_time", aperture, focalLength = "focal_length", iso
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ text: String) { stringValue = text }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        func text(_ key: CodingKeys, _ converted: String? = nil) -> String? {
            for name in [key.rawValue] + (converted.map { [$0] } ?? []) {
                let key = AnyKey(name)
                if let text = try? c.decodeIfPresent(String.self, forKey: key) { return text }
                if let number = try? c.decodeIfPresent(Double.self, forKey: key) {
                    return number == number.rounded() ? String(Int(number)) : String(number)
                }
            }
            return nil
        }
        make = text(.make)
        model = text(.model)
        exposureTime = text(.exposureTime, "exposureTime")
        aperture = text(.aperture)
        focalLength = text(.focalLength, "focalLength")
        iso = text(.iso).flatMap { Int($0) ?? Double($0).map { Int($0) } }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(make, forKey: .make)
        try c.encodeIfPresent(model, forKey: .model)
        try c.encodeIfPresent(exposureTime, forKey: .exposureTime)
        try c.encodeIfPresent(aperture, forKey: .aperture)
        try c.encodeIfPresent(focalLength, forKey: .focalLength)
        try c.encodeIfPresent(iso, forKey: .iso)
    }
}

public struct PhotoLocation: Codable, Sendable, Equatable {
    public var name: String?
    public var latitude: Double?
    public var longitude: Double?
    public init(name: String? = nil, latitude: Double? = nil, longitude: Double? = nil) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
    }
}

public struct NearDuplicate: Codable, Sendable, Equatable {
    public var id: String
    public var distance: Int
    public init(id: String, distance: Int) {
        self.id = id
        self.distance = distance
    }
}

/// A photo as `photos.show` shows it. Fields are added over time (author details, exif, ...); clients
/// ignore the ones they do not know.
public struct PhotoDetail: Codable, Sendable, Equatable {
    public var id: String
    public var source: PhotoSource
    public var title: String?
    public var description: String?
    public var author: String?
    public var width: Int?
    public var height: Int?
    public var color: String?
    /// Renditions the source offers: variant → URL.
    public var urls: [String: String]
    public var fetchedAt: Date
    public var likedAt: Date?
    public var dismissedAt: Date?
    /// Files on this machine, library first.
    public var files: [PhotoFileInfo]
    /// Set while a library file is on its way (downloading, or waiting to retry after a failure).
    public var download: DownloadStatus?
    /// Why this photo's original is not shared with the account's other devices (too large): on the
    /// device that has it, and on the others, which have the photo without its file.
    public var originalNote: String?
    public var tags: [String]?
    public var authorUrl: String?
    /// The photo's page at its source.
    public var pageUrl: String?
    /// When it was taken (EXIF) or published.
    public var createdAt: Date?
    public var exif: PhotoExif?
    public var location: PhotoLocation?
    /// The credit line the source asks for, e.g. "Photo by Ana Lima on Unsplash".
    public var attribution: String?
    /// Library photos that look the same (perceptual hash within import.duplicate_threshold bits).
    public var duplicates: [NearDuplicate]?
    /// Every rendition the source offers, largest first, with its size where known.
    public var renditions: [PhotoRendition]?

    public init(
        id: String, source: PhotoSource, title: String? = nil, description: String? = nil, author: String? = nil,
        width: Int? = nil, height: Int? = nil, color: String? = nil, urls: [String: String] = [:], fetchedAt: Date,
        likedAt: Date? = nil, dismissedAt: Date? = nil, files: [PhotoFileInfo] = [], download: DownloadStatus? = nil,
        tags: [String]? = nil, authorUrl: String? = nil, pageUrl: String? = nil, createdAt: Date? = nil, exif: PhotoExif? = nil,
        location: PhotoLocation? = nil, attribution: String? = nil, duplicates: [NearDuplicate]? = nil
    ) {
        self.tags = tags
        self.authorUrl = authorUrl
        self.pageUrl = pageUrl
        self.createdAt = createdAt
        self.exif = exif
        self.location = location
        self.attribution = attribution
        self.duplicates = duplicates
        self.id = id
        self.source = source
        self.title = title
        self.description = description
        self.author = author
        self.width = width
        self.height = height
        self.color = color
        self.urls = urls
        self.fetchedAt = fetchedAt
        self.likedAt = likedAt
        self.dismissedAt = dismissedAt
        self.files = files
        self.download = download
    }
}

public struct PhotoFileInfo: Codable, Sendable, Equatable {
    public enum Location: String, Codable, Sendable {
        /// In the data directory: kept for good.
        case library
        /// In the cache directory: evicted least-recently-used above cache.max_bytes.
        case cache
    }

    public var variant: String
    /// Absolute path.
    public var path: String
    public var bytes: Int64
    public var location: Location
    /// The file is on disk (false when something removed it behind splashd's back).
    public var present: Bool
    /// SHA-256, hex.
    public var checksum: String?
    public var createdAt: Date
    public var lastAccessAt: Date

    public init(
        variant: String, path: String, bytes: Int64, location: Location, present: Bool, checksum: String?, createdAt: Date,
        lastAccessAt: Date
    ) {
        self.variant = variant
        self.path = path
        self.bytes = bytes
        self.location = location
        self.present = present
        self.checksum = checksum
        self.createdAt = createdAt
        self.lastAccessAt = lastAccessAt
    }
}

public struct DownloadStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        case downloading
        /// A failure; another attempt is due at `next_attempt_at`.
        case waiting
    }

    public var state: State
    public var bytes: Int64?
    public var total: Int64?
    public var attempts: Int?
    public var lastError: String?
    public var httpStatus: Int?
    public var nextAttemptAt: Date?

    public init(
        state: State, bytes: Int64? = nil, total: Int64? = nil, attempts: Int? = nil, lastError: String? = nil,
        httpStatus: Int? = nil, nextAttemptAt: Date? = nil
    ) {
        self.state = state
        self.bytes = bytes
        self.total = total
        self.attempts = attempts
        self.lastError = lastError
        self.httpStatus = httpStatus
        self.nextAttemptAt = nextAttemptAt
    }
}

/// `cache.status`: disk used by the library and the cache.
public struct CacheStatusRequest: RPCRequest {
    public typealias Result = CacheUsage
    public static let method = "cache.status"
    public static let summary = "Disk used by the library (kept) and the cache (evicted above max_bytes), and downloads under way."
    public static let example = CacheStatusRequest()
    public static let resultExample = CacheUsage(
        libraryBytes: 412_000_000, libraryFiles: 1200, cacheBytes: 18_000_000, cacheFiles: 900, maxBytes: 1 << 30,
        libraryDirectory: "/home/ana/.local/share/splashd/library", cacheDirectory: "/home/ana/.cache/splashd",
        downloading: 2, waiting: 1, pictures: PictureTiers(
            memoryEntries: 31, memoryBytes: 4_120_000, memoryMaxBytes: 64 << 20, memoryHits: 58, memoryMisses: 31, diskHits: 27, diskMisses: 4))
    public init() {}
}

public struct CacheUsage: Codable, Sendable, Equatable {
    public var libraryBytes: Int64
    public var libraryFiles: Int
    public var cacheBytes: Int64
    public var cacheFiles: Int
    /// cache.max_bytes.
    public var maxBytes: Int64
    public var libraryDirectory: String
    public var cacheDirectory: String
    /// Library files being fetched now.
    public var downloading: Int
    /// Library files waiting to retry after a failure.
    public var waiting: Int
    /// Pictures drawn for terminals: the memory tier in front of these files, with hit rates.
    public var pictures: PictureTiers?

    public init(
        libraryBytes: Int64, libraryFiles: Int, cacheBytes: Int64, cacheFiles: Int, maxBytes: Int64, libraryDirectory: String,
        cacheDirectory: String, downloading: Int, waiting: Int, pictures: PictureTiers? = nil
    ) {
        self.pictures = pictures
        self.libraryBytes = libraryBytes
        self.libraryFiles = libraryFiles
        self.cacheBytes = cacheBytes
        self.cacheFiles = cacheFiles
        self.maxBytes = maxBytes
        self.libraryDirectory = libraryDirectory
        self.cacheDirectory = cacheDirectory
        self.downloading = downloading
        self.waiting = waiting
    }
}

/// `cache.prune`: evicts cache files now. Library files are never touched.
public struct CachePruneRequest: RPCRequest {
    public typealias Result = CachePruneResult
    public static let method = "cache.prune"
    public static let summary = "Evicts cache files, least recently used first, until the cache holds at most keep_bytes (default 0: all of it). The library is never touched."
    public static let parameters = [ParameterDoc("keep_bytes", "integer", "Leave this many bytes of the most recently used cache files (default 0).")]
    public static let errors: [ErrorKind] = [.invalidInput]
    public static let example = CachePruneRequest(keepBytes: 0)
    public static let resultExample = CachePruneResult(removedFiles: 900, removedBytes: 18_000_000, cacheBytes: 0)
    public var keepBytes: Int64?
    public init(keepBytes: Int64? = nil) { self.keepBytes = keepBytes }
    public func validate() throws(RPCError) {
        if let keepBytes, keepBytes < 0 { throw .invalidInput(.negativeKeepBytes, field: "keep_bytes") }
    }
}

public struct CachePruneResult: Codable, Sendable, Equatable {
    public var removedFiles: Int
    public var removedBytes: Int64
    /// What the cache holds afterwards.
    public var cacheBytes: Int64
    public init(removedFiles: Int, removedBytes: Int64, cacheBytes: Int64) {
        self.removedFiles = removedFiles
        self.removedBytes = removedBytes
        self.cacheBytes = cacheBytes
    }
}

/// One rendition of a photo at its source: NASA's orig/large/medium/small/thumb, Unsplash's
/// raw/full/regular/small/thumb.
public struct PhotoRendition: Codable, Sendable, Equatable {
    public var variant: String
    public var url: String
    /// Bytes, as the host answered (NASA's, fetched with the photo's details).
    public var bytes: Int64?
    /// Pixels, where the URL says (Unsplash's `w=`) and the photo's shape gives the height.
    public var width: Int?
    public var height: Int?

    public init(variant: String, url: String, bytes: Int64? = nil, width: Int? = nil, height: Int? = nil) {
        self.variant = variant
        self.url = url
        self.bytes = bytes
        self.width = width
        self.height = height
    }
}
