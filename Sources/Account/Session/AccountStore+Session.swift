import Store
import Supabase

extension AccountStore {
    /// Records that `user` is signed in here (see `recordSignIn(id:email:createdAt:lastSignInAt:username:)`).
    func recordSignIn(_ user: SessionUser, username: String?) throws {
        try recordSignIn(id: user.id, email: user.email, createdAt: user.createdAt, lastSignInAt: user.lastSignInAt, username: username)
    }
}
