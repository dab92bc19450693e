import Foundation
import Store

/// A `public.profiles` row as PostgREST sends it.
struct WireProfile: Decodable, Sendable {
    var id: String
    var username: String
    var email: String?
    var createdAt: String?
    var updatedAt: String?
    var lastSignInAt: String?

    enum CodingKeys: String, CodingKey {
        case id, username, email, createdAt = "created_at", updatedAt = "updated_at", lastSignInAt = "last_sign_in_at"
    }
}

extension WireProfile {
    /// The row as the store keeps it.
    var pulled: ProfileStore.Pulled {
        ProfileStore.Pulled(
            username: username, email: email, createdAt: createdAt.flatMap(SupabaseTime.parse),
            lastSignInAt: lastSignInAt.flatMap(SupabaseTime.parse), updatedAt: updatedAt.flatMap(SupabaseTime.parse))
    }
}
