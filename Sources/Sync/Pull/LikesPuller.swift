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

    /// Pulls every page since the cursor, then the rows passed over earlier whose local op has since
    /// resolved. `token` is the user's access token.
    func pull(accountId: String, token: String, gate: SyncGate) async throws(BackendError) -> Applied {
        var applied = Applied()
        while true {
            // One page at a time, fetched and applied in the same turn as no push (see SyncGate).
            let (page, more) = try await gate.run(throwing: { () async throws(BackendError) in try await self.pullPage(accountId: accountId, token: token) })
            applied.changes += page.changes
            applied.rows += page.rows
            if !more { break }
        }
        let again = try await gate.run(throwing: { () async throws(BackendError) in try await self.reread(accountId: accountId, token: token) })
        applied.changes += again.changes
        applied.rows += again.rows
        return applied
    }

    static let table = "likes"

    /// Reads again, by key, the rows an earlier page passed over while a local op waited, now that
    /// nothing waits for them (PullRereads): the server's row then decides, as it would have.
    private func reread(accountId: String, token: String) async throws(BackendError) -> Applied {
        var applied = Applied()
        let ids: [String]
        do {
            ids = try store.read { db in
                try PullRereads.ready(db, accountId: accountId, table: Self.table, entity: LikeActions.entity, limit: ServerPhotos.idsPerRequest)
            }
        } catch {
            throw .local("cannot read the store: \(error)")
        }
        if ids.isEmpty { return applied }
        let fetchStarted = Date()
        let list = ids.map { "\"" + $0.replacingOccurrences(of: "\"", with: "") + "\"" }.joined(separator: ",")
        let response = try await backend.send(
            "GET", "/rest/v1/likes",
            query: [("select", "id,photo_id,liked_at,updated_at,deleted_at"), ("photo_id", "in.(\(list))")], bearer: token)
        let rows = try SupabaseBackend.decode([ServerLike].self, from: response)
        let photos = try await ServerPhotos(backend: backend, store: store).fetchUnknown(rows.map(\.photo_id), token: token)
        do {
            applied.changes = try store.write { db in
                // Ids the server has no row for have nothing to apply: forgotten too.
                try PullRereads.forget(db, accountId: accountId, table: Self.table, entityIds: ids)
                return try Self.apply(rows, photos: photos, accountId: accountId, fetchStarted: fetchStarted, moveCursor: false, db: db)
            }
        } catch {
            throw .local("cannot apply pulled likes: \(error)")
        }
        applied.rows = rows.count
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
            if moveCursor { try SyncCursor(updatedAt: row.updated_at, lastID: row.id).save(db, accountId: accountId, table: table) }
        }
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
        let existing = try LikeRecord.fetchOne(db, key: ["account_id": accountId, "photo_id": row.photo_id])
        if let existing, existing.updatedAt > fetchStarted { return .passedOver }
        let wasLiked = existing.map { $0.deletedAt == nil } ?? false
        try LikeRecord(accountId: accountId, photoId: row.photo_id, likedAt: likedAt, updatedAt: now, deletedAt: deletedAt).save(db)
        let isLiked = deletedAt == nil
        return .applied(wasLiked != isLiked ? PhotoChange(id: row.photo_id, change: isLiked ? .liked : .unliked) : nil)
    }
}
