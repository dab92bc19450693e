import Shared
import Store

extension DaemonState {
    /// Whose likes and edits a request makes: the signed-in account's (online or not), or signed out
    /// the guest's, kept on this machine until an account adopts them.
    var actingAccount: String {
        let account = current.account
        guard account.state != .signedOut, let id = account.userId else { return GuestRows.accountId }
        return id
    }

    /// The account a request acts for: signed in, online or not. Signed out, the request is refused
    /// with `text`, which says what signing in is for.
    func requireAccount(_ text: DaemonText) throws(DaemonFailure) -> String {
        let account = current.account
        guard account.state != .signedOut, let id = account.userId else { throw .notSignedIn(text) }
        return id
    }
}
