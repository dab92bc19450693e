import Foundation
import Store
import Supabase
import Support

/// A row of the server's `profiles` as PostgREST returns it.
struct WireProfile: Decodable, Sendable {
    var id: String
    var username: String
    var email: String?
    var createdAt: String?
    var updatedAt: String?
    var lastSignInAt: String?
    var usernameSetAt: String?
    var usernameSetBy: String?

    enum CodingKeys: String, CodingKey {
        case id, username, email, createdAt = "created_at", updatedAt = "updated_at", lastSignInAt = "last_sign_in_at"
        case usernameSetAt = "username_set_at", usernameSetBy = "username_set_by"
    }

    /// The columns read.
    static let columns = "id,username,email,created_at,updated_at,last_sign_in_at,username_set_at,username_set_by"
}

extension WireProfile {
    /// The row as the store keeps it.
    var pulled: ProfileStore.Pulled {
        ProfileStore.Pulled(
            username: username, email: email, createdAt: createdAt.flatMap(SupabaseTime.parse),
            lastSignInAt: lastSignInAt.flatMap(SupabaseTime.parse), updatedAt: updatedAt.flatMap(SupabaseTime.parse),
            usernameStamp: usernameSetAt.flatMap(SupabaseTime.parse).map { ActionStamp(date: $0, device: usernameSetBy ?? "") })
    }
}
