import Foundation
import GRDB
import HTTP
import Library
import Logging
import Shared
import Store
import Supabase

/// Pulls the account's likes from the server since the last cursor and applies them by the person's
/// last word (`LikeMerge`): a row later than the store's replaces it and supersedes this device's ops
/// for it still waiting; an earlier one is kept back until this device's own op has reached the
/// server. Photos this device has never seen are made bare, and filled from the server's `photos`
/// after (`PhotosPuller`).
struct LikesPuller: TablePuller {
    let backend: SupabaseBackend
    let store: Store
    let pageSize = 500
    let logger: Logger

    static let table = "likes"
    static let entity = LikeActions.entity
    static let columns = ServerLikeRow.columns
    /// A photo has one like row per account: passed-over likes are remembered by photo.
    static let rereadColumn = "photo_id"
    /// The device whose action a like is (the last-word stamp's).
    static let writerColumn: String? = "acted_by"

    /// Every page since the cursor but this device's own actions (`device`), then the rows passed over
    /// earlier. `token` is the user's access token.
    func pull(accountId: String, device: String, token: String, gate: SyncGate) async throws(BackendError) -> PullApplied {
        try await pullTable(accountId: accountId, device: device, token: token, gate: gate)
    }

    static func photoId(of row: ServerLikeRow) -> String { row.photo_id }

    static func cursor(after row: ServerLikeRow) -> SyncCursor? {
        guard let id = row.id, let updatedAt = row.updated_at else { return nil }
        return SyncCursor(updatedAt: updatedAt, lastID: id)
    }

    /// A screenful of the newest likes with their photos, when this account's likes were never pulled
    /// here and it has none here (a new device): the library's first screen fills in a second, while the
    /// pull of every row goes on from the oldest and reads these again unchanged. (A device whose likes
    /// were all made here has its cursor at the start too, since its pull passes over its own rows.)
    func pullNewest(accountId: String, token: String, gate: SyncGate) async throws(BackendError) -> PullApplied {
        try await gate.run(throwing: { () async throws(BackendError) in
            let firstLook = try? self.store.read { db in
                try SyncCursor.load(db, accountId: accountId, table: Self.table) == .start
                    && LikeRecord.all().filter(accountId: accountId).isEmpty(db)
            }
            guard firstLook == true else { return PullApplied() }
            let response = try await self.backend.send(
                "GET", "/rest/v1/\(Self.table)",
                query: [("select", Self.columns), ("user_id", "eq.\(accountId)"), ("deleted_at", "is.null"),
                        ("order", "liked_at.desc"), ("limit", String(PhotosListRequest.defaultLimit))],
                bearer: token)
            let rows = try SupabaseBackend.decode([ServerLikeRow].self, from: response)
            if rows.isEmpty { return PullApplied() }
            let photos = try await ServerPhotos(backend: self.backend, store: self.store).fetchUnknown(rows.map(\.photo_id), token: token)
            do {
                let changes = try self.store.write { db in
                    try Self.apply(rows, photos: photos, accountId: accountId, moveCursor: false, db: db)
                }
                return PullApplied(changes: changes, rows: rows.count)
            } catch {
                throw .local("cannot apply pulled \(Self.table): \(error)")
            }
        })
    }

    static func applyPage(
        _ rows: [ServerLikeRow], accountId: String, fetchStarted: Date, moveCursor: Bool, db: Database
    ) throws -> AppliedPage {
        var superseded = 0
        let changes = try apply(
            rows, photos: [], accountId: accountId, reason: moveCursor ? .pulled : .reread(fetchStarted: fetchStarted),
            moveCursor: moveCursor, superseded: &superseded, db: db)
        return AppliedPage(changes: changes, superseded: superseded)
    }

    func committed(_ page: AppliedPage) {
        if page.superseded > 0 {
            logger.info("\(page.superseded) queued like changes gave way to later ones made on another device", metadata: [
                "splashd_op": "pull", "splashd_count": "\(page.superseded)",
            ])
        }
    }

    /// Applies one page in one transaction and, for a page read by cursor (`moveCursor`), moves the
    /// cursor past it.
    static func apply(
        _ rows: [ServerLikeRow], photos: [PulledRows.PhotosAnswer], accountId: String, reason: LikeMerge.Reason = .pulled,
        moveCursor: Bool = true, db: Database
    ) throws -> [PhotoChange] {
        var superseded = 0
        return try apply(rows, photos: photos, accountId: accountId, reason: reason, moveCursor: moveCursor, superseded: &superseded, db: db)
    }

    static func apply(
        _ rows: [ServerLikeRow], photos: [PulledRows.PhotosAnswer], accountId: String, reason: LikeMerge.Reason,
        moveCursor: Bool, superseded: inout Int, db: Database
    ) throws -> [PhotoChange] {
        let now = Date()
        try PulledRows.fillBarePhotos(db, photos, fetchedAt: now, addingUnknown: true)
        try ServerPhotos.ensureBare(rows.map(\.photo_id), db: db, now: now)
        var changes: [PhotoChange] = []
        for row in rows {
            if case .applied(let change?) = try LikeMerge.merge(row, accountId: accountId, reason: reason, now: now, db: db, superseded: &superseded) {
                changes.append(change)
            }
        }
        // Past the whole page, in the page's transaction: the same as moving past each row.
        if moveCursor, let cursor = rows.last.flatMap(cursor(after:)) {
            try cursor.save(db, accountId: accountId, table: table)
        }
        return changes
    }
}
