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

    /// Live edits of an account, newest first; of one photo when `photoId` is given.
    /// Live edits whose rendering is in Storage but not on this machine, newest first.
    public static func withoutRendering(_ db: Database, accountId: String, limit: Int) throws -> [EditRecord] {
        try EditRecord.fetchAll(db, sql: """
            SELECT * FROM edits WHERE account_id = ? AND deleted_at IS NULL AND path IS NULL AND storage_path IS NOT NULL
            ORDER BY created_at DESC LIMIT ?
            """, arguments: [accountId, limit])
    }

    /// Where the edit's rendering is in Storage, once uploaded.
    public static func setStoragePath(_ db: Database, _ path: String, editId: String) throws {
        try db.execute(sql: "UPDATE edits SET storage_path = ? WHERE id = ?", arguments: [path, editId])
    }

    public static func live(_ db: Database, accountId: String, photoId: String? = nil) throws -> [EditRecord] {
        var sql = "SELECT * FROM edits WHERE account_id = ? AND deleted_at IS NULL"
        var arguments: StatementArguments = [accountId]
        if let photoId {
            sql += " AND photo_id = ?"
            arguments += [photoId]
        }
        return try EditRecord.fetchAll(db, sql: sql + " ORDER BY created_at DESC, id", arguments: arguments)
    }
}
