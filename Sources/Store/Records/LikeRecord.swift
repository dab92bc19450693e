import Foundation
import GRDB

/// A row of `likes`. `deletedAt` set means unliked (a tombstone, so the unlike can sync).
public struct LikeRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "likes"
    public static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    public static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    public var accountId: String
    public var photoId: String
    public var likedAt: Date
    public var updatedAt: Date
    public var deletedAt: Date?

    public init(accountId: String, photoId: String, likedAt: Date, updatedAt: Date, deletedAt: Date? = nil) {
        self.accountId = accountId
        self.photoId = photoId
        self.likedAt = likedAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }

    /// Whether this like already says what a pulled row says: liked or not, liked at the same moment to
    /// the millisecond (the store keeps milliseconds, the server microseconds).
    public func sameState(likedAt: Date, deletedAt: Date?) -> Bool {
        (self.deletedAt == nil) == (deletedAt == nil) && abs(self.likedAt.timeIntervalSince(likedAt)) < 0.001
    }
}
