import Foundation
import GRDB
import Library
import Shared
import Store
import Supabase
import Support

/// How a server like row meets this store's, written once for the pull, the rows read again, and the
/// answer to a push. The later action wins, by `ActionStamp` (the same rule the server's trigger keeps).
enum LikeMerge {
    enum Reason: Sendable {
        /// A page of the pull: the row applies if it is later than the store's; the store's ops for it
        /// still waiting are then superseded (the server would keep the row over them).
        case pulled
        /// A row read again once nothing waits for it: the server decides, unless the person acted here
        /// after `fetchStarted` (this machine's clock).
        case reread(fetchStarted: Date)
        /// The row as the server kept it, in answer to the op stamped `sent`: it replaces the store's
        /// unless the person acted again since.
        case answered(sent: ActionStamp)
    }

    enum Outcome: Equatable {
        /// Written (with the change a person sees, if the photo's liked state moved), or already so.
        case applied(PhotoChange?)
        /// The store's row is later: kept, and the server's read again once nothing waits for it.
        case kept
        /// A photo id this version cannot hold.
        case unusable
    }

    /// Merges `row` into `accountId`'s like of its photo. `superseded` counts ops dropped. The photo's row
    /// is the caller's to make, for the rows of a page at once (`ServerPhotos.ensureBare`).
    static func merge(
        _ row: ServerLikeRow, accountId: String, reason: Reason, now: Date, db: Database, superseded: inout Int
    ) throws -> Outcome {
        guard ServerPhotos.parts(of: row.photo_id) != nil else { return .unusable }
        let existing = try LikeRecord.find(db, accountId: accountId, photoId: row.photo_id)
        let stamp = row.stamp
        if let existing, existing.stamp == stamp { return .applied(nil) }
        switch reason {
        case .pulled:
            if let existing, existing.stamp > stamp {
                try PullRereads.remember(db, accountId: accountId, table: LikesPuller.table, entityId: row.photo_id)
                return .kept
            }
            superseded += try OutboxStore.supersedeWaiting(db, accountId: accountId, entity: LikeActions.entity, entityId: row.photo_id)
        case .reread(let fetchStarted):
            let waiting = try PullRereads.opWaiting(db, accountId: accountId, entity: LikeActions.entity, entityId: row.photo_id)
            if waiting || existing.map({ $0.updatedAt > fetchStarted }) == true {
                try PullRereads.remember(db, accountId: accountId, table: LikesPuller.table, entityId: row.photo_id)
                return .kept
            }
        case .answered(let sent):
            // A row stamped before stamps were kept here was not acted on since (every action stamps).
            if let existing, existing.actedBy != nil, existing.stamp > sent { return .kept }
        }
        let likedAt = SupabaseTime.parse(row.liked_at) ?? now
        let deletedAt = row.deleted_at.flatMap(SupabaseTime.parse)
        let wasLiked = existing?.isLiked ?? false
        try PulledRows.saveLike(db, LikeRecord(
            accountId: accountId, photoId: row.photo_id, likedAt: likedAt, updatedAt: now, deletedAt: deletedAt, stamp: stamp))
        let isLiked = deletedAt == nil
        return .applied(wasLiked != isLiked ? PhotoChange(id: row.photo_id, change: isLiked ? .liked : .unliked) : nil)
    }
}
