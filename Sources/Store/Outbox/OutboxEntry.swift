import Foundation
import GRDB

/// One change waiting for the server: a row of `outbox`. Ops are applied locally first, in the same
/// transaction that writes this row, so the person's change survives any crash before it is sent.
public struct OutboxEntry: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "outbox"
    public static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    public static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    public enum State: String, Codable, Sendable, DatabaseValueConvertible {
        case pending
        case inFlight = "in_flight"
        case rejected
    }

    public var seq: Int64?
    public var opId: String
    public var accountId: String
    public var entity: String
    public var entityId: String
    public var op: String
    public var payload: String
    public var state: State
    public var attempts: Int
    public var nextAttemptAt: Date?
    public var lastError: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(accountId: String, entity: String, entityId: String, op: String, payload: String, now: Date = Date()) {
        self.opId = UUID().uuidString.lowercased()
        self.accountId = accountId
        self.entity = entity
        self.entityId = entityId
        self.op = op
        self.payload = payload
        self.state = .pending
        self.attempts = 0
        self.createdAt = now
        self.updatedAt = now
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        seq = inserted.rowID
    }
}
