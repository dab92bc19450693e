import Foundation
import GRDB

/// The guest's rows: likes and edits made signed out, kept under the account id "" and never pushed,
/// and the record of an adoption into an account under way.
public enum GuestRows {
    /// The account id the guest's likes and edits are kept under.
    public static let accountId = ""

    /// The guest's live likes and edits.
    public static func counts(_ db: Database) throws -> (likes: Int, edits: Int) {
        let likes = try LikeRecord.all().filter(accountId: accountId).standing().fetchCount(db)
        let edits = try EditRecord.all().filter(accountId: accountId).live().fetchCount(db)
        return (likes, edits)
    }

    /// Up to `limit` of the guest's live likes, oldest first.
    public static func likes(_ db: Database, limit: Int) throws -> [LikeRecord] {
        try LikeRecord.all().filter(accountId: accountId).standing().orderedByLiking().limit(limit).fetchAll(db)
    }

    /// Forgets the guest's likes of these photos (they now belong to an account), and every like the
    /// guest took back (nothing to bring anywhere).
    public static func forgetLikes(_ db: Database, photoIds: [String]) throws {
        try LikeRecord.all().filter(accountId: accountId).filter(photoIds.contains(LikeRecord.Columns.photoId)).deleteAll(db)
        try LikeRecord.all().filter(accountId: accountId).takenBack().deleteAll(db)
    }

    /// Up to `limit` of the guest's edits (live or removed), oldest first.
    public static func edits(_ db: Database, limit: Int) throws -> [EditRecord] {
        try EditRecord.all().filter(accountId: accountId).orderedByCreation().limit(limit).fetchAll(db)
    }

    /// The account an adoption is bringing the guest's rows into, if one was cut short.
    public static func adoptionUnderWay(_ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT account_id FROM guest_adoptions ORDER BY started_at LIMIT 1")
    }

    public static func startAdoption(_ db: Database, into account: String, now: Date) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO guest_adoptions (account_id, started_at) VALUES (?, ?)", arguments: [account, now])
    }

    public static func finishAdoption(_ db: Database, into account: String) throws {
        try db.execute(sql: "DELETE FROM guest_adoptions WHERE account_id = ?", arguments: [account])
    }
}
