import Control
import Foundation
import GRDB
import Library
import Logging
import Shared
import Store
import Sync
import Synchronization

/// Likes, dismissals, the queue and `sync.now`.
struct SyncCapability: Sendable {
    let likes: LikeActions
    let engine: PushEngine?
    var pull: PullEngine?
    var network: NetworkGate = .alwaysOnline
    var service: SyncService?
}

enum LibraryRoutes {
    static func register(into router: inout Router, state: DaemonState, library: PhotoLibrary, sync: SyncCapability?, logger: Logger) {
        let likes = sync?.likes ?? LikeActions(store: library.store)
        let engine = sync?.engine

        /// After a change: counters and events, and the push engine woken.
        @Sendable func changed(_ id: String, _ change: PhotoChange.Kind, queued: Bool) {
            refreshCounts(state: state, library: library, logger: logger)
            state.bus.publish(.photoChanged(PhotoChange(id: id, change: change)))
            if queued { engine?.ring() }
        }

        @Sendable func signedInAccount() throws(RPCError) -> String {
            let account = state.current.account
            guard account.state != .signedOut, let id = account.userId else {
                throw RPCError(.notSignedIn, "sign in to like photos (splashctl login); likes are kept with your account")
            }
            return id
        }

        @Sendable func result(_ id: String, accountId: String?, changed: Bool, queued: Bool) throws -> PhotoActionResult {
            let flags = try library.store.read { db in
                (
                    try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM likes WHERE account_id = ? AND photo_id = ? AND deleted_at IS NULL)",
                                      arguments: [accountId ?? "", id]) ?? false,
                    try Bool.fetchOne(db, sql: "SELECT dismissed_at IS NOT NULL FROM photos WHERE id = ?", arguments: [id]) ?? false
                )
            }
            return PhotoActionResult(id: id, liked: flags.0, dismissed: flags.1, changed: changed, queued: queued)
        }

        router.register(PhotosLikeRequest.self) { request, _ in
            let account = try signedInAccount()
            let outcome = try mapped { try likes.like(photoId: request.id, accountId: account) }
            if case .changed(let queued) = outcome { changed(request.id, .liked, queued: queued) }
            return try result(request.id, accountId: account, changed: outcome != .unchanged, queued: outcome == .changed(queued: true))
        }
        router.register(PhotosUnlikeRequest.self) { request, _ in
            let account = try signedInAccount()
            let outcome = try mapped { try likes.unlike(photoId: request.id, accountId: account) }
            if case .changed(let queued) = outcome { changed(request.id, .unliked, queued: queued) }
            return try result(request.id, accountId: account, changed: outcome != .unchanged, queued: outcome == .changed(queued: true))
        }

        router.register(PhotosDismissRequest.self) { request, _ in
            let dismiss = request.undo != true
            let outcome = try mapped { try likes.setDismissed(dismiss, photoId: request.id) }
            if outcome != .unchanged { changed(request.id, dismiss ? .dismissed : .restored, queued: false) }
            return try result(request.id, accountId: state.current.account.userId, changed: outcome != .unchanged, queued: false)
        }

        router.register(SyncNowRequest.self) { request, _ in
            let account = try signedInAccount()
            guard let service = sync?.service else { throw RPCError(.offline, "no account server is configured; nothing to sync with") }
            guard request.wait == true else {
                service.start(accountId: account)
                refreshCounts(state: state, library: library, logger: logger)
                let outbox = state.current.outbox
                return SyncResult(
                    pushed: 0, rejected: outbox.rejected, pending: outbox.pending, inFlight: outbox.inFlight,
                    online: state.current.connectivity.state != .offline, drained: outbox.pending + outbox.inFlight == 0)
            }
            let report = await service.syncAndWait(accountId: account, timeout: .seconds(request.timeoutSeconds ?? 60))
            refreshCounts(state: state, library: library, logger: logger)
            let (outcome, reason): (SyncResult.Outcome, String?) = switch report.outcome {
            case .drained: (.drained, nil)
            case .rejected: (.rejected, nil)
            case .offline(let why): (.offline, why)
            case .timedOut(let why): (.timedOut, why)
            }
            return SyncResult(
                pushed: report.pushed, rejected: report.left.rejected, pending: report.left.pending, inFlight: report.left.inFlight,
                online: state.current.connectivity.state != .offline, drained: report.left.toSend == 0, outcome: outcome, reason: reason)
        }

        router.register(QueueListRequest.self) { request, _ in
            let ops = try library.store.read { db in try OutboxStore.list(db, rejectedOnly: request.rejected == true) }
            return QueueListResult(ops: ops.map {
                QueuedOp(
                    opId: $0.opId, entity: $0.entity, entityId: $0.entityId, op: $0.op, state: $0.state.rawValue,
                    attempts: $0.attempts, nextAttemptAt: $0.nextAttemptAt, lastError: $0.lastError, createdAt: $0.createdAt)
            })
        }

        router.register(QueueRetryRequest.self) { request, _ in
            let found = try library.store.write { db -> Bool in
                guard var op = try OutboxStore.find(db, opId: request.opId) else { return false }
                guard op.state != .inFlight else { return true }
                op.state = .pending
                op.nextAttemptAt = nil
                op.updatedAt = Date()
                try op.update(db)
                return true
            }
            guard found else { throw RPCError(.notFound, "no queued op \(request.opId); splashctl queue lists them", field: "op_id") }
            refreshCounts(state: state, library: library, logger: logger)
            engine?.ring()
            return QueueChangeResult(opId: request.opId, state: "pending")
        }

        router.register(QueueDropRequest.self) { request, _ in
            let outcome = try library.store.write { db -> OutboxEntry.State? in
                guard let op = try OutboxStore.find(db, opId: request.opId) else { return nil }
                if op.state != .inFlight { try op.delete(db) }
                return op.state
            }
            switch outcome {
            case nil: throw RPCError(.notFound, "no queued op \(request.opId); splashctl queue lists them", field: "op_id")
            case .inFlight?: throw RPCError(.conflict, "op \(request.opId) is being sent right now; try again in a moment", field: "op_id")
            default: break
            }
            logger.notice("a queued change was dropped by request", metadata: ["splashd_op": "queue_drop", "splashd_op_id": "\(request.opId)"])
            refreshCounts(state: state, library: library, logger: logger)
            return QueueChangeResult(opId: request.opId, state: "dropped")
        }
    }

    /// Domain errors in the protocol's terms.
    static func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch LibraryError.unknownPhoto(let id) {
            throw RPCError(.notFound, LibraryError.unknownPhoto(id).description, field: "id")
        }
    }

    /// Counting and publishing happen under one lock: callers on several threads (the push engine,
    /// the image queue, handlers) would otherwise publish their counts out of the order they read them,
    /// and an older count could arrive after a newer one (seen in the benchmark's event timings).
    static func refreshCounts(state: DaemonState, library: PhotoLibrary, logger: Logger) {
        countsLock.withLock { _ in
            do {
                let counts = try library.counts(accountId: state.current.account.userId ?? "")
                state.setLibrary(counts.library)
                state.setOutbox(counts.outbox)
            } catch {
                logger.error("cannot count the library: \(error)")
            }
        }
    }

    private static let countsLock = Mutex(())
}
