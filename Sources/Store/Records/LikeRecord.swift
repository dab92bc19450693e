import Foundation
import GRDB
import Support

/// A row of `likes`. `deletedAt` set means unliked (a tombstone, so the unlike can sync). `actedMs` and
/// `actedBy` stamp the action that set it (`ActionStamp`): a pulled row replaces it only when later.
public struct LikeRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "likes"
    public static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    public static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    public var accountId: String
    public var photoId: String
    public var likedAt: Date
    public var updatedAt: Date
    public var deletedAt: Date?
    public var actedMs: Int64?
    public var actedBy: String?

    public init(
        accountId: String, photoId: String, likedAt: Date, updatedAt: Date, deletedAt: Date? = nil, stamp: ActionStamp? = nil
    ) {
        self.accountId = accountId
        self.photoId = photoId
        self.likedAt = likedAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.actedMs = stamp?.milliseconds
        self.actedBy = stamp?.device
    }

    /// The action this row holds; a row from before stamps is older than any stamped one.
    public var stamp: ActionStamp {
        get { ActionStamp(milliseconds: actedMs ?? .min, device: actedBy ?? "") }
        set {
            actedMs = newValue.milliseconds
            actedBy = newValue.device
        }
    }

    public var isLiked: Bool { deletedAt == nil }

    /// The table's columns, by their names in the store (snake case, as the coding strategies write them).
    public enum Columns {
        public static let accountId = Column("account_id")
        public static let photoId = Column("photo_id")
        public static let likedAt = Column("liked_at")
        public static let updatedAt = Column("updated_at")
        public static let deletedAt = Column("deleted_at")
        public static let actedMs = Column("acted_ms")
        public static let actedBy = Column("acted_by")
    }

    /// The account's like of the photo, liked or not; nil when it never had one. Asked for every pulled
    /// row as well as every action: compiled once per connection.
    public static func find(_ db: Database, accountId: String, photoId: String) throws -> LikeRecord? {
        try LikeRecord.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM likes WHERE account_id = ? AND photo_id = ?"), arguments: [accountId, photoId])
    }
}

extension DerivableRequest<LikeRecord> {
    /// One account's rows (the guest's are under `GuestRows.accountId`).
    public func filter(accountId: String) -> Self {
        filter(LikeRecord.Columns.accountId == accountId)
    }

    /// Likes that stand: not taken back.
    public func standing() -> Self {
        filter(LikeRecord.Columns.deletedAt == nil)
    }

    /// Likes taken back: the tombstones that carry an unlike to the server.
    public func takenBack() -> Self {
        filter(LikeRecord.Columns.deletedAt != nil)
    }

    /// In the order they were liked; photos liked in the same instant by id.
    public func orderedByLiking() -> Self {
        order(LikeRecord.Columns.likedAt, LikeRecord.Columns.photoId)
    }
}
