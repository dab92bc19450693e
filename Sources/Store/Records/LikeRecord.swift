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
    /// the millisecond. The same moment reaches milliseconds by two roads that cut it differently (the
    /// store's date text and the op's payload, which is what the server keeps: one rounds, the other
    /// truncates), so the two can be a whole millisecond apart: under 1.5 ms is the same moment. Under
    /// 1 ms, the echo of a like made in the second half of a millisecond could be written again, as
    /// floating point happened to fall (PulledPageTests).
    public func sameState(likedAt: Date, deletedAt: Date?) -> Bool {
        (self.deletedAt == nil) == (deletedAt == nil) && abs(self.likedAt.timeIntervalSince(likedAt)) < 0.0015
    }
}
