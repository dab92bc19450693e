import Account
import Foundation
import GRDB
import HTTP
import Library
import Shared
import Store

/// Pulls the account's likes from the server since the last cursor and applies them: the server's row
/// wins unless a local op on the same photo is still waiting to be sent (the person's newer intent).
/// Photos this device has never seen come with their metadata from the server's `photos` table.
struct LikesPuller: TablePuller {
    let backend: SupabaseBackend
    let store: Store
    let pageSize = 500

    struct ServerLike: Decodable, Sendable {
        var id: String
        var photo_id: String
        var liked_at: String
        var updated_at: String
        var deleted_at: String?
    }

    static let table = "likes"
    static let entity = LikeActions.entity
    static let columns = "id,photo_id,liked_at,updated_at,deleted_at"
    /// A photo has one like row per account: passed-over likes are remembered by photo.
    static let rereadColumn = "photo_id"

    /// Every page since the cursor, then the rows passed over earlier. `token` is the user's access token.
    func pull(accountId: String, token: String, gate: SyncGate) async throws(BackendError) -> PullApplied {
        try await pullTable(accountId: accountId, token: token, gate: gate)
    }

    static func photoId(of row: ServerLike) -> String { row.photo_id }

    static func applyPage(
        _ rows: [ServerLike], photos: [ServerPhotoRow], accountId: String, fetchStarted: Date, moveCursor: Bool, db: Database
    ) throws -> AppliedPage {
        AppliedPage(changes: try apply(rows, photos: photos, accountId: accountId, fetchStarted: fetchStarted, moveCursor: moveCursor, db: db))
    }

    func committed(_ page: AppliedPage) {}

    /// Applies one page in one transaction and moves the cursor past it (`moveCursor`; not for rows
    /// read again by key). A row not applied because a local op waits is remembered (PullRereads).
    /// A like changed here after `fetchStarted` is newer than anything in this page: its own op (or
    /// the server's newer row, once that op is sent) decides, not this page.
    static func apply(
        _ rows: [ServerLike], photos: [ServerPhotoRow], accountId: String, fetchStarted: Date = .distantFuture,
        moveCursor: Bool = true, db: Database
    ) throws -> [PhotoChange] {
        let now = Date()
        try ServerPhotos.insert(photos, db: db, now: now)
        var changes: [PhotoChange] = []
        for row in rows {
            switch try applyRow(row, accountId: accountId, fetchStarted: fetchStarted, now: now, db: db) {
            case .applied(let change?): changes.append(change)
            case .applied(nil), .unusable: break
            case .passedOver: try PullRereads.remember(db, accountId: accountId, table: table, entityId: row.photo_id)
            }
        }
        // Past the whole page, in the page's transaction: the same as moving past each row.
        if moveCursor, let last = rows.last { try SyncCursor(updatedAt: last.updated_at, lastID: last.id).save(db, accountId: accountId, table: table) }
        return changes
    }

    enum RowOutcome {
        case applied(PhotoChange?)
        /// A local change waits to be sent: the person's newer intent wins until it is.
        case passedOver
        /// A photo id this version cannot hold.
        case unusable
    }

    static func applyRow(_ row: ServerLike, accountId: String, fetchStarted: Date, now: Date, db: Database) throws -> RowOutcome {
        if try PullRereads.opWaiting(db, accountId: accountId, entity: LikeActions.entity, entityId: row.photo_id) { return .passedOver }
        guard try ServerPhotos.ensureBare(row.photo_id, db: db, now: now) else { return .unusable }
        let likedAt = SupabaseTime.parse(row.liked_at) ?? now
        let deletedAt = row.deleted_at.flatMap(SupabaseTime.parse)
        let existing = try PulledRows.like(db, accountId: accountId, photoId: row.photo_id)
        if let existing, existing.updatedAt > fetchStarted { return .passedOver }
        let wasLiked = existing.map { $0.deletedAt == nil } ?? false
        // The echo of this device's own push, or a row pulled before: the store already says so.
        if let existing, existing.sameState(likedAt: likedAt, deletedAt: deletedAt) { return .applied(nil) }
        try PulledRows.saveLike(db, LikeRecord(accountId: accountId, photoId: row.photo_id, likedAt: likedAt, updatedAt: now, deletedAt: deletedAt))
        let isLiked = deletedAt == nil
        return .applied(wasLiked != isLiked ? PhotoChange(id: row.photo_id, change: isLiked ? .liked : .unliked) : nil)
    }
}
