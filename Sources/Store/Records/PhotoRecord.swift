import Foundation
import GRDB
import Shared

/// A row of `photos`.
public struct PhotoRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "photos"
    public static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    public static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    public var id: String
    public var source: PhotoSource
    public var remoteId: String
    public var title: String?
    public var description: String?
    public var altDescription: String?
    public var tags: String
    public var authorName: String?
    public var authorUsername: String?
    public var authorUrl: String?
    public var width: Int?
    public var height: Int?
    public var color: String?
    public var colorBucket: String?
    public var blurHash: String?
    public var urls: String?
    public var metadata: String?
    public var phash: Int64?
    public var createdAt: Date?
    public var remoteUpdatedAt: Date?
    public var fetchedAt: Date
    public var dismissedAt: Date?

    public init(
        source: PhotoSource, remoteId: String, title: String? = nil, description: String? = nil,
        altDescription: String? = nil, tags: [String] = [], authorName: String? = nil,
        authorUsername: String? = nil, authorUrl: String? = nil, width: Int? = nil, height: Int? = nil,
        color: String? = nil, colorBucket: String? = nil, blurHash: String? = nil, urls: String? = nil,
        metadata: String? = nil, phash: Int64? = nil, createdAt: Date? = nil, remoteUpdatedAt: Date? = nil,
        fetchedAt: Date, dismissedAt: Date? = nil
    ) {
        self.id = "\(source.rawValue):\(remoteId)"
        self.source = source
        self.remoteId = remoteId
        self.title = title
        self.description = description
        self.altDescription = altDescription
        self.tags = tags.joined(separator: " ")
        self.authorName = authorName
        self.authorUsername = authorUsername
        self.authorUrl = authorUrl
        self.width = width
        self.height = height
        self.color = color
        self.colorBucket = colorBucket
        self.blurHash = blurHash
        self.urls = urls
        self.metadata = metadata
        self.phash = phash
        self.createdAt = createdAt
        self.remoteUpdatedAt = remoteUpdatedAt
        self.fetchedAt = fetchedAt
        self.dismissedAt = dismissedAt
    }

    /// The columns asked of one photo alone, by their names in the store.
    public enum Columns {
        public static let phash = Column("phash")
        public static let dismissedAt = Column("dismissed_at")
    }
}
