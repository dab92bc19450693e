import Foundation
import Shared
import Store

/// The queue of changes waiting to go to the server, as `splashctl queue` shows and changes it.
public struct OutboxQueue: Sendable {
    public let store: Store
    /// Told when an op is due again.
    public let announce: Announcements

    public init(store: Store, announce: Announcements = .silent) {
        self.store = store
        self.announce = announce
    }

    /// A like held as a near-duplicate shows as `duplicate`, naming its twin; one whose photo's file is
    /// still to be compared says so while it waits.
    public func list(rejectedOnly: Bool) throws -> [QueuedOp] {
        let (ops, holds, checking) = try store.read { db in
            (try OutboxStore.list(db, rejectedOnly: rejectedOnly), try LikeCheckRows.holds(db), try LikeCheckRows.waitingOps(db))
        }
        return ops.map { op in
            var queued = QueuedOp(
                opId: op.opId, entity: op.entity.rawValue, entityId: op.entityId, op: op.op.rawValue, state: op.state.rawValue,
                attempts: op.attempts, nextAttemptAt: op.nextAttemptAt, lastError: op.lastError, createdAt: op.createdAt)
            if op.state == .pending, let hold = holds[op.opId] {
                queued.state = "duplicate"
                queued.nextAttemptAt = nil
                queued.duplicateOf = hold.twinId
                queued.distance = hold.distance
                queued.lastError = "looks like \(hold.twinId), already in the library (\(hold.distance) bits apart): "
                    + "queue.retry keeps the like, photos.unlike undoes it"
            } else if op.state == .pending, op.attempts == 0, checking.contains(op.opId) {
                queued.lastError = "waiting for its photo's file, to compare it with the library's photos before it is sent"
            }
            return queued
        }
    }

    /// Makes a waiting or refused op due now (one being sent is left to finish).
    public func retry(opId: String, now: Date = Date()) throws {
        guard try store.write({ db in try OutboxStore.retryNow(db, opId: opId, now: now) }) != nil else { throw LibraryError.unknownOp(opId) }
        announce.outboxQueued()
    }

    /// Removes an op for good: the change it carried is not sent, and a like's row on the server is read
    /// again by the next pull (this device shows the server's word again, not the change dropped).
    public func drop(opId: String) throws {
        switch try store.write({ db -> OutboxEntry.State? in
            let op = try OutboxStore.find(db, opId: opId)
            let state = try OutboxStore.drop(db, opId: opId)
            if let op, state != .inFlight, op.entity == LikeActions.entity {
                try PullRereads.remember(db, accountId: op.accountId, table: "likes", entityId: op.entityId)
            }
            return state
        }) {
        case nil: throw LibraryError.unknownOp(opId)
        case .inFlight?: throw LibraryError.opInFlight(opId)
        default: break
        }
    }
}
