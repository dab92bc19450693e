import GRDB

/// A photo's two flags as a like, unlike or dismissal answers them.
public enum PhotoFlagsQuery {
    public struct Flags: Sendable, Equatable {
        public var liked: Bool
        public var dismissed: Bool
    }

    /// Flags of a photo the store does not hold are both false.
    public static func fetch(_ db: Database, photoId: String, accountId: String) throws -> Flags {
        let liked = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM likes WHERE account_id = ? AND photo_id = ? AND deleted_at IS NULL)",
            arguments: [accountId, photoId]) ?? false
        let dismissed = try Bool.fetchOne(db, sql: "SELECT dismissed_at IS NOT NULL FROM photos WHERE id = ?", arguments: [photoId]) ?? false
        return Flags(liked: liked, dismissed: dismissed)
    }
}
