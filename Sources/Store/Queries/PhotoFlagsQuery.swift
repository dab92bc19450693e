import GRDB

/// A photo's two flags as a like, unlike or dismissal answers them.
public enum PhotoFlagsQuery {
    public struct Flags: Sendable, Equatable {
        public var liked: Bool
        public var dismissed: Bool
    }

    /// Flags of a photo the store does not hold are both false.
    public static func fetch(_ db: Database, photoId: String, accountId: String) throws -> Flags {
        let liked = try LikeRecord.find(db, accountId: accountId, photoId: photoId)?.isLiked ?? false
        let dismissed = try Bool.fetchOne(db, PhotoRecord.filter(key: photoId).select(PhotoRecord.Columns.dismissedAt != nil)) ?? false
        return Flags(liked: liked, dismissed: dismissed)
    }
}
