import Foundation
import Support

/// A row of the server's `likes` as the pull reads it and as a push is answered with it.
public struct ServerLikeRow: Decodable, Sendable, Equatable {
    public var id: String?
    public var photo_id: String
    public var liked_at: String
    public var updated_at: String?
    public var deleted_at: String?
    public var acted_at: String?
    public var acted_by: String?

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, photo_id, liked_at, updated_at, deleted_at, acted_at, acted_by
    }

    /// The columns read: every key.
    public static let columns = CodingKeys.allCases.map(\.rawValue).joined(separator: ",")

    public init(
        id: String? = nil, photo_id: String, liked_at: String, updated_at: String? = nil, deleted_at: String? = nil,
        acted_at: String? = nil, acted_by: String? = nil
    ) {
        self.id = id
        self.photo_id = photo_id
        self.liked_at = liked_at
        self.updated_at = updated_at
        self.deleted_at = deleted_at
        self.acted_at = acted_at
        self.acted_by = acted_by
    }

    /// The action the row holds; a row without a stamp (a server before the last-word migration) is
    /// older than any stamped one.
    public var stamp: ActionStamp {
        ActionStamp(
            milliseconds: acted_at.flatMap(SupabaseTime.parse).map(ActionStamp.milliseconds) ?? .min, device: acted_by ?? "")
    }
}
