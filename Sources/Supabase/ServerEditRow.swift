import Shared

/// A row of the server's `edits`: pushed for an edit saved or removed, read back by the pull.
public struct ServerEditRow: Codable, Sendable, Equatable {
    public var id: String
    public var photo_id: String
    public var pipeline: [FilterStep]
    /// The rendering's object in Storage (`renders/<uid>/…`); nil on a row written without one.
    public var storage_path: String?
    public var created_at: String
    /// Set by the server's trigger; never sent.
    public var updated_at: String?
    public var deleted_at: String?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, photo_id, pipeline, storage_path, created_at, updated_at, deleted_at
    }

    /// The columns read: every key.
    public static let columns = CodingKeys.allCases.map(\.rawValue).joined(separator: ",")

    public init(
        id: String, photo_id: String, pipeline: [FilterStep], storage_path: String?, created_at: String, updated_at: String? = nil,
        deleted_at: String? = nil
    ) {
        self.id = id
        self.photo_id = photo_id
        self.pipeline = pipeline
        self.storage_path = storage_path
        self.created_at = created_at
        self.updated_at = updated_at
        self.deleted_at = deleted_at
    }

    /// What a push sends: `deleted_at` as null explicitly (a re-created edit comes back), and no
    /// `updated_at` (the server's trigger keeps it).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(photo_id, forKey: .photo_id)
        try c.encode(pipeline, forKey: .pipeline)
        try c.encode(storage_path, forKey: .storage_path)
        try c.encode(created_at, forKey: .created_at)
        try c.encode(deleted_at, forKey: .deleted_at)
    }
}
