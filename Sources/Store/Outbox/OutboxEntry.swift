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

    /// What an op is about: the server's table (or Storage's bucket) it goes to.
    public enum Entity: String, Codable, Sendable, DatabaseValueConvertible {
        case like, edit, original, profile
    }

    /// What the server is to be told of the entity.
    public enum Op: String, Codable, Sendable, DatabaseValueConvertible {
        /// A like's latest intent.
        case like, unlike
        /// An edit saved, or removed.
        case upsert, delete
        /// A photo's original, for the account's other devices.
        case upload
        /// The profile's username (`ProfileStore` queues it).
        case setUsername = "set_username"
    }

    /// A row whose `entity` or `op` no splashd writes: the store was changed by something else.
    public struct UnknownValue: Error, CustomStringConvertible {
        public let seq: Int64?
        public let column: String
        public let value: String
        public var description: String { "outbox row \(seq.map(String.init) ?? "?") has an unknown \(column) '\(value)'" }
    }

    public var seq: Int64?
    public var opId: String
    public var accountId: String
    public var entity: Entity
    public var entityId: String
    public var op: Op
    public var payload: String
    public var state: State
    public var attempts: Int
    public var nextAttemptAt: Date?
    public var lastError: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(accountId: String, entity: Entity, entityId: String, op: Op, payload: String, now: Date = Date()) {
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

    /// The table's columns, for the query interface and for reading a row.
    public enum Columns {
        public static let seq = Column("seq")
        public static let opId = Column("op_id")
        public static let accountId = Column("account_id")
        public static let entity = Column("entity")
        public static let entityId = Column("entity_id")
        public static let op = Column("op")
        public static let payload = Column("payload")
        public static let state = Column("state")
        public static let attempts = Column("attempts")
        public static let nextAttemptAt = Column("next_attempt_at")
        public static let lastError = Column("last_error")
        public static let createdAt = Column("created_at")
        public static let updatedAt = Column("updated_at")
    }

    /// Read column by column. Through Codable, every column's name went through the snake-case
    /// conversion for every row, and a push batch reads up to 10,000 rows at once.
    public init(row: Row) throws {
        seq = row[Columns.seq]
        opId = row[Columns.opId]
        accountId = row[Columns.accountId]
        let entity: String = row[Columns.entity]
        guard let kind = Entity(rawValue: entity) else { throw UnknownValue(seq: seq, column: "entity", value: entity) }
        self.entity = kind
        entityId = row[Columns.entityId]
        let op: String = row[Columns.op]
        guard let known = Op(rawValue: op) else { throw UnknownValue(seq: seq, column: "op", value: op) }
        self.op = known
        payload = row[Columns.payload]
        state = row[Columns.state]
        attempts = row[Columns.attempts]
        nextAttemptAt = row[Columns.nextAttemptAt]
        lastError = row[Columns.lastError]
        createdAt = row[Columns.createdAt]
        updatedAt = row[Columns.updatedAt]
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        seq = inserted.rowID
    }
}
