import Shared

extension DaemonState {
    /// The account a request acts for: signed in, online or not. Signed out, the request is refused
    /// with `message`, which says what signing in is for.
    func requireAccount(_ message: String) throws(RPCError) -> String {
        let account = current.account
        guard account.state != .signedOut, let id = account.userId else { throw RPCError(.notSignedIn, message) }
        return id
    }
}
