import Foundation
import Shared
import Store

/// The queue of changes waiting to go to the server, as `splashctl queue` shows and changes it.
public struct OutboxQueue: Sendable {
    public let store: Store

    public init(store: Store) {
        self.store = store
    }

    public func list(rejectedOnly: Bool) throws -> [QueuedOp] {
        try store.read { db in try OutboxStore.list(db, rejectedOnly: rejectedOnly) }.map {
            QueuedOp(
                opId: $0.opId, entity: $0.entity, entityId: $0.entityId, op: $0.op, state: $0.state.rawValue,
                attempts: $0.attempts, nextAttemptAt: $0.nextAttemptAt, lastError: $0.lastError, createdAt: $0.createdAt)
        }
    }

    /// Makes a waiting or refused op due now (one being sent is left to finish).
    public func retry(opId: String, now: Date = Date()) throws {
        guard try store.write({ db in try OutboxStore.retryNow(db, opId: opId, now: now) }) != nil else { throw LibraryError.unknownOp(opId) }
    }

    /// Removes an op for good: the change it carried is not sent.
    public func drop(opId: String) throws {
        switch try store.write({ db in try OutboxStore.drop(db, opId: opId) }) {
        case nil: throw LibraryError.unknownOp(opId)
        case .inFlight?: throw LibraryError.opInFlight(opId)
        default: break
        }
    }
}
