import Foundation
import GRDB
import Shared
import Store

/// Brings the guest's likes and edits (made signed out, kept under `GuestRows.accountId`) into an
/// account: each becomes the account's and is queued for the server like any other change.
///
/// In batches, one transaction each: a batch moves its rows and queues their ops together, so a crash
/// leaves every row either still the guest's or wholly the account's. The adoption is recorded before
/// the first batch and cleared after the last, and the daemon goes on with one it finds recorded at
/// its start (`resume`). A like the account already has is merged, not doubled: nothing is queued for
/// it. What the guest took back (unliked, removed) is dropped: it has nothing for the account.
public struct GuestAdoption: Sendable {
    public let store: Store
    public let batchSize: Int
    /// Told when the adopted rows' ops are queued.
    public let announce: Announcements

    public init(store: Store, batchSize: Int = 500, announce: Announcements = .silent) {
        self.store = store
        self.batchSize = batchSize
        self.announce = announce
    }

    /// The guest's live likes and edits.
    public func counts() throws -> GuestCounts {
        let counts = try store.read { db in try GuestRows.counts(db) }
        return GuestCounts(likes: counts.likes, edits: counts.edits)
    }

    /// Brings everything of the guest's into `accountId`; returns how many likes and edits became the
    /// account's (a like it already had counts as adopted: the person's intent is there).
    /// `afterBatch` runs after each committed batch (tests stop there to play a crash).
    public func adopt(into accountId: String, now: Date = Date(), afterBatch: () throws -> Void = {}) throws -> GuestCounts {
        precondition(accountId != GuestRows.accountId, "the guest cannot adopt itself")
        try store.write { db in try GuestRows.startAdoption(db, into: accountId, now: now) }
        var adopted = GuestCounts(likes: 0, edits: 0)
        while true {
            let moved = try store.write { db -> Int in
                let likes = try GuestRows.likes(db, limit: batchSize)
                for like in likes {
                    _ = try LikeActions.setLiked(true, db: db, photoId: like.photoId, accountId: accountId, actedAt: like.likedAt, now: now)
                }
                try GuestRows.forgetLikes(db, photoIds: likes.map(\.photoId))
                return likes.count
            }
            adopted.likes += moved
            if moved > 0 { try afterBatch() }
            if moved < batchSize { break }
        }
        while true {
            // Every edit of a batch stops being the guest's: a live one is re-keyed, a removed one deleted.
            let (read, moved) = try store.write { db -> (Int, Int) in
                let edits = try GuestRows.edits(db, limit: batchSize)
                var moved = 0
                for var edit in edits {
                    guard edit.deletedAt == nil, let photo = try PhotoRecord.fetchOne(db, key: edit.photoId) else {
                        try edit.delete(db)
                        continue
                    }
                    edit.accountId = accountId
                    try edit.update(db)
                    try EditActions.queueUpload(of: edit, photo: photo, db: db, now: now)
                    moved += 1
                }
                return (edits.count, moved)
            }
            adopted.edits += moved
            if read > 0 { try afterBatch() }
            if read < batchSize { break }
        }
        try store.write { db in try GuestRows.finishAdoption(db, into: accountId) }
        if !adopted.isEmpty { announce.outboxQueued() }
        return adopted
    }

    /// The account an adoption cut short (by a crash) was bringing the guest's rows into, if any.
    public func underWay() throws -> String? {
        try store.read { db in try GuestRows.adoptionUnderWay(db) }
    }
}
