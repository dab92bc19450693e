import GRDB

/// What `edits list` shows of an edit beside its record: whether its ops are still queued or were
/// refused, and the size of its rendered file.
public enum EditUploadQuery {
    public struct Upload: Sendable, Equatable {
        /// The states of the edit's ops in the outbox; empty once everything went out.
        public var opStates: [String]
        public var bytes: Int64?
    }

    public static func fetch(_ db: Database, editId: String, photoId: String, entity: OutboxEntry.Entity) throws -> Upload {
        Upload(
            opStates: try String.fetchAll(db, sql: "SELECT state FROM outbox WHERE entity = ? AND entity_id = ?", arguments: [entity, editId]),
            bytes: try Int64.fetchOne(db, sql: "SELECT bytes FROM photo_files WHERE photo_id = ? AND variant = ?", arguments: [photoId, "edit:\(editId)"]))
    }
}
