import Foundation
import GRDB

/// A row of `edits`: one filtered rendering of a photo. The original is never touched; the rendering
/// lives at `path` (relative to the data directory) and, once pushed, in Storage at `storagePath`.
/// `deletedAt` set means removed (a tombstone, so the removal can sync).
public struct EditRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "edits"
    public static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    public static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    public var id: String
    public var accountId: String
    public var photoId: String
    /// JSON array of `{"filter", "params"}`, parameters resolved.
    public var pipeline: String
    public var path: String?
    public var storagePath: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var deletedAt: Date?

    public init(
        id: String, accountId: String, photoId: String, pipeline: String, path: String?, storagePath: String?,
        createdAt: Date, updatedAt: Date, deletedAt: Date? = nil
    ) {
        self.id = id
        self.accountId = accountId
        self.photoId = photoId
        self.pipeline = pipeline
        self.path = path
        self.storagePath = storagePath
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
    }

    /// The table's columns, by their names in the store (snake case, as the coding strategies write them).
    public enum Columns {
        public static let id = Column("id")
        public static let accountId = Column("account_id")
        public static let photoId = Column("photo_id")
        public static let path = Column("path")
        public static let storagePath = Column("storage_path")
        public static let createdAt = Column("created_at")
        public static let deletedAt = Column("deleted_at")
    }

    /// Live edits whose rendering is in Storage but not on this machine, newest first.
    public static func withoutRendering(_ db: Database, accountId: String, limit: Int) throws -> [EditRecord] {
        try EditRecord.all().filter(accountId: accountId).live()
            .filter(Columns.path == nil && Columns.storagePath != nil)
            .order(Columns.createdAt.desc).limit(limit).fetchAll(db)
    }

    /// Where the edit's rendering is in Storage, once uploaded.
    public static func setStoragePath(_ db: Database, _ path: String, editId: String) throws {
        try EditRecord.filter(key: editId).updateAll(db, Columns.storagePath.set(to: path))
    }

    /// Live edits of an account, newest first; of one photo when `photoId` is given.
    public static func live(_ db: Database, accountId: String, photoId: String? = nil) throws -> [EditRecord] {
        var request = EditRecord.all().filter(accountId: accountId).live()
        if let photoId { request = request.filter(Columns.photoId == photoId) }
        return try request.order(Columns.createdAt.desc, Columns.id).fetchAll(db)
    }
}

extension DerivableRequest<EditRecord> {
    /// One account's edits (the guest's are under `GuestRows.accountId`).
    public func filter(accountId: String) -> Self {
        filter(EditRecord.Columns.accountId == accountId)
    }

    /// Edits not removed.
    public func live() -> Self {
        filter(EditRecord.Columns.deletedAt == nil)
    }

    /// In the order they were made; edits made in the same instant by id.
    public func orderedByCreation() -> Self {
        order(EditRecord.Columns.createdAt, EditRecord.Columns.id)
    }
}
