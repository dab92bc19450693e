import Account
import Foundation
import Support

/// A row of the server's `likes` as the pull reads it and as a push is answered with it.
struct ServerLikeRow: Decodable, Sendable {
    var id: String?
    var photo_id: String
    var liked_at: String
    var updated_at: String?
    var deleted_at: String?
    var acted_at: String?
    var acted_by: String?

    /// The columns read.
    static let columns = "id,photo_id,liked_at,updated_at,deleted_at,acted_at,acted_by"

    /// The action the row holds; a row without a stamp (a server before the last-word migration) is
    /// older than any stamped one.
    var stamp: ActionStamp {
        ActionStamp(
            milliseconds: acted_at.flatMap(SupabaseTime.parse).map(ActionStamp.milliseconds) ?? .min, device: acted_by ?? "")
    }
}
