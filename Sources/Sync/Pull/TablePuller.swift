import Foundation
import GRDB
import HTTP
import Shared
import Store
import Supabase

/// A page read in the gate's turn numbered `turn`, for the turn after it.
struct ReadAhead<Row: Sendable>: Sendable {
    var rows: [Row]
    var status: Int
    var turn: UInt64
}

/// What a pull brought: the changes people see, how many server rows came, and the photos they
/// named (whose metadata the pass over the photos' rows brings).
struct PullApplied: Sendable {
    var changes: [PhotoChange] = []
    var rows = 0
    var photoIds: Set<String> = []

    static func += (lhs: inout PullApplied, rhs: PullApplied) {
        lhs.changes += rhs.changes
        lhs.rows += rhs.rows
        lhs.photoIds.formUnion(rhs.photoIds)
    }
}

/// One page of server rows applied in one transaction: the changes, and the files (relative paths)
/// the page made obsolete, removed only once the transaction is committed.
struct AppliedPage: Sendable {
    var changes: [PhotoChange]
    var obsoleteFiles: [String] = []
    /// Queued ops that rows of the page made moot (a later change from another device).
    var superseded = 0
}

/// A server table pulled by cursor, page after page, then the rows an earlier page passed over while
/// a local op waited (PullRereads), read again by key now that nothing waits for them. The page loop
/// is written once here; each table says how its rows apply. A row's photo is made bare if the store
/// lacks it; its metadata comes after, from the photos' rows (`PhotosPuller`).
protocol TablePuller: Sendable {
    associatedtype ServerRow: Decodable & Sendable

    var backend: SupabaseBackend { get }
    var store: Store { get }
    var pageSize: Int { get }
    /// The server's table, also the cursor's and the rereads' name for it.
    static var table: String { get }
    /// The outbox entity whose waiting ops make a row pass over.
    static var entity: OutboxEntry.Entity { get }
    static var columns: String { get }
    /// The column a passed-over row is read again by.
    static var rereadColumn: String { get }
    /// The column naming the device that last wrote a row, when the table has one: a device's pull
    /// passes over its own writes.
    static var writerColumn: String? { get }

    static func photoId(of row: ServerRow) -> String
    /// The cursor just past `row` (nil for a row without its server time or id).
    static func cursor(after row: ServerRow) -> SyncCursor?
    static func applyPage(
        _ rows: [ServerRow], accountId: String, fetchStarted: Date, moveCursor: Bool, db: Database
    ) throws -> AppliedPage
    /// Called once a page's transaction is committed.
    func committed(_ page: AppliedPage)
}

extension TablePuller {
    static var writerColumn: String? { nil }

    /// Every page since the cursor, then the rows passed over earlier whose local op has since
    /// resolved. Each page is applied in one turn of the gate, read in that turn or in the one just
    /// before it with no other between: never across a push batch.
    /// `device` is this device's id: the rows it wrote itself are not read back.
    func pullTable(accountId: String, device: String, token: String, gate: SyncGate) async throws(BackendError) -> PullApplied {
        var applied = PullApplied()
        var ahead: ReadAhead<ServerRow>?
        let ownWrites = Self.writerColumn.map { OwnWrites(column: $0, device: device) }
        while true {
            let (page, more, next) = try await gate.run(numberedThrowing: { [ahead] turn throws(BackendError) in
                try await self.pullPage(accountId: accountId, ownWrites: ownWrites, token: token, turn: turn, ahead: ahead)
            })
            applied += page
            ahead = next
            if !more { break }
        }
        applied += try await gate.run(throwing: { () async throws(BackendError) in try await self.reread(accountId: accountId, token: token) })
        return applied
    }

    /// One page: the rows after the cursor, applied; `more` when a full page came back. The next page
    /// is read while this one is applied, in the same turn, and taken as it is by the next turn if that
    /// turn follows this one with no other between (no push batch landed after the read); otherwise it
    /// is read again.
    private func pullPage(
        accountId: String, ownWrites: OwnWrites?, token: String, turn: UInt64, ahead: ReadAhead<ServerRow>?
    ) async throws(BackendError) -> (PullApplied, Bool, ReadAhead<ServerRow>?) {
        let rows: [ServerRow], status: Int
        if let ahead, ahead.turn + 1 == turn {
            (rows, status) = (ahead.rows, ahead.status)
        } else {
            let cursor = (try? store.read { db in try SyncCursor.load(db, accountId: accountId, table: Self.table) }) ?? .start
            (rows, status) = try await fetchPage(after: cursor, accountId: accountId, ownWrites: ownWrites, token: token).get()
        }
        if rows.isEmpty { return (PullApplied(), false, nil) }
        let more = rows.count == pageSize
        async let following =
            more ? readAhead(after: rows.last.flatMap(Self.cursor(after:)), accountId: accountId, ownWrites: ownWrites, token: token) : nil
        let page: AppliedPage
        do {
            page = try store.write { db in
                try Self.applyPage(rows, accountId: accountId, fetchStarted: Date(), moveCursor: true, db: db)
            }
        } catch {
            throw .malformed(status: status, detail: "cannot apply pulled \(Self.table): \(error)")
        }
        committed(page)
        let next = await following.map { ReadAhead(rows: $0.rows, status: $0.status, turn: turn) }
        return (PullApplied(changes: page.changes, rows: rows.count, photoIds: Set(rows.map(Self.photoId(of:)))), more, next)
    }

    /// A page of the rows after `cursor`, and the answer's status.
    private func fetchPage(
        after cursor: SyncCursor, accountId: String, ownWrites: OwnWrites?, token: String
    ) async -> Result<(rows: [ServerRow], status: Int), BackendError> {
        await backend.page(
            of: Self.table, columns: Self.columns, after: cursor, userId: accountId, limit: pageSize, passingOver: ownWrites, token: token)
    }

    /// The page after `cursor` read ahead, or nil when there is no cursor or the read failed (the next
    /// turn then reads it and meets the failure itself).
    private func readAhead(
        after cursor: SyncCursor?, accountId: String, ownWrites: OwnWrites?, token: String
    ) async -> (rows: [ServerRow], status: Int)? {
        guard let cursor else { return nil }
        return try? await fetchPage(after: cursor, accountId: accountId, ownWrites: ownWrites, token: token).get()
    }

    /// Reads again, by key, the rows an earlier page passed over while a local op waited: the server's
    /// row then decides, as it would have. Keys the server has no row for are forgotten too.
    private func reread(accountId: String, token: String) async throws(BackendError) -> PullApplied {
        let keys: [String]
        do {
            keys = try store.read { db in
                try PullRereads.ready(db, accountId: accountId, table: Self.table, entity: Self.entity, limit: ServerPhotos.idsPerRequest)
            }
        } catch {
            throw .local("cannot read the store: \(error)")
        }
        if keys.isEmpty { return PullApplied() }
        let fetchStarted = Date()
        let list = keys.map { "\"" + $0.replacingOccurrences(of: "\"", with: "") + "\"" }.joined(separator: ",")
        let response = try await backend.send(
            "GET", "/rest/v1/\(Self.table)", query: [("select", Self.columns), (Self.rereadColumn, "in.(\(list))")], bearer: token)
        let rows = try SupabaseBackend.decode([ServerRow].self, from: response)
        let page: AppliedPage
        do {
            page = try store.write { db in
                try PullRereads.forget(db, accountId: accountId, table: Self.table, entityIds: keys)
                return try Self.applyPage(rows, accountId: accountId, fetchStarted: fetchStarted, moveCursor: false, db: db)
            }
        } catch {
            throw .local("cannot apply pulled \(Self.table): \(error)")
        }
        committed(page)
        return PullApplied(changes: page.changes, rows: rows.count, photoIds: Set(rows.map(Self.photoId(of:))))
    }
}
