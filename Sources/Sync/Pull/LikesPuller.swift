import Account
import Foundation
import GRDB
import Library
import Shared
import Store

/// Pulls the account's likes from the server since the last cursor and applies them: the server's row
/// wins unless a local op on the same photo is still waiting to be sent (the person's newer intent).
/// Photos this device has never seen come with their metadata from the server's `photos` table.
struct LikesPuller: Sendable {
    let backend: SupabaseBackend
    let store: Store
    let pageSize = 500

    struct ServerLike: Decodable {
        var id: String
        var photo_id: String
        var liked_at: String
        var updated_at: String
        var deleted_at: String?
    }

    struct Applied: Sendable {
        var changes: [PhotoChange] = []
        var rows = 0
    }

    /// Pulls every page since the cursor. `token` is the user's access token.
    func pull(accountId: String, token: String, gate: SyncGate) async throws(BackendError) -> Applied {
        var applied = Applied()
        while true {
            // One page at a time, fetched and applied in the same turn as no push (see SyncGate).
            let outcome = await gate.run { () -> Result<(Applied, Bool), BackendError> in
                do throws(BackendError) {
                    return .success(try await self.pullPage(accountId: accountId, token: token))
                } catch {
                    return .failure(error)
                }
            }
            let (page, more) = try outcome.get()
            applied.changes += page.changes
            applied.rows += page.rows
            if !more { break }
        }
        return applied
    }

    /// One page: the rows after the cursor, applied; `more` when a full page came back.
    private func pullPage(accountId: String, token: String) async throws(BackendError) -> (Applied, Bool) {
        var applied = Applied()
        let cursor = (try? store.read { db in try SyncCursor.load(db, accountId: accountId, table: "likes") }) ?? .start
        let fetchStarted = Date()
        let response = try await backend.send(
            "GET", "/rest/v1/likes",
            query: [("select", "id,photo_id,liked_at,updated_at,deleted_at"), ("or", cursor.afterFilter),
                    ("order", "updated_at.asc,id.asc"), ("limit", String(pageSize))],
            bearer: token)
        let rows = try SupabaseBackend.decode([ServerLike].self, from: response)
        if rows.isEmpty { return (applied, false) }
        let photos = try await ServerPhotos(backend: backend, store: store).fetchUnknown(rows.map(\.photo_id), token: token)
        do {
            let page = try store.write { db in
                try Self.apply(rows, photos: photos, accountId: accountId, fetchStarted: fetchStarted, db: db)
            }
            applied.changes += page
            applied.rows += rows.count
        } catch {
            throw .malformed(status: response.status, detail: "cannot apply pulled likes: \(error)")
        }
        return (applied, rows.count == pageSize)
    }

    /// Applies one page in one transaction and moves the cursor past it.
    /// A like changed here after `fetchStarted` is newer than anything in this page: its own op (or
    /// the server's newer row, once that op is sent) decides, not this page.
    static func apply(
        _ rows: [ServerLike], photos: [ServerPhotoRow], accountId: String, fetchStarted: Date = .distantFuture, db: Database
    ) throws -> [PhotoChange] {
        let now = Date()
        try ServerPhotos.insert(photos, db: db, now: now)
        var changes: [PhotoChange] = []
        for row in rows {
            defer { try? SyncCursor(updatedAt: row.updated_at, lastID: row.id).save(db, accountId: accountId, table: "likes") }
            let waiting = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM outbox WHERE account_id = ? AND entity = ? AND entity_id = ? AND state IN ('pending', 'in_flight')
                """, arguments: [accountId, LikeActions.entity, row.photo_id]) ?? 0
            if waiting > 0 { continue }  // the person's newer change wins until it is sent
            guard try ServerPhotos.ensureBare(row.photo_id, db: db, now: now) else { continue }
            let likedAt = SupabaseTime.parse(row.liked_at) ?? now
            let deletedAt = row.deleted_at.flatMap(SupabaseTime.parse)
            let existing = try LikeRecord.fetchOne(db, key: ["account_id": accountId, "photo_id": row.photo_id])
            if let existing, existing.updatedAt > fetchStarted { continue }
            let wasLiked = existing.map { $0.deletedAt == nil } ?? false
            try LikeRecord(accountId: accountId, photoId: row.photo_id, likedAt: likedAt, updatedAt: now, deletedAt: deletedAt).save(db)
            let isLiked = deletedAt == nil
            if wasLiked != isLiked { changes.append(PhotoChange(id: row.photo_id, change: isLiked ? .liked : .unliked)) }
        }
        return changes
    }
}
