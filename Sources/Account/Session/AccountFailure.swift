import HTTP
import Shared
import Supabase

/// Why an account operation failed. The daemon puts it into the protocol's words (`WireErrors`); the
/// description is for logs and for reasons shown beside a sync's outcome.
public enum AccountFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No session (never signed in, signed out, or the server ended it: the text says which).
    case notSignedIn(DaemonText)
    /// The server did not give a usable answer, or (`.local`) nothing could be sent from this machine.
    case backend(BackendError)

    public var description: String {
        switch self {
        case .notSignedIn(let text): text.english
        case .backend(let error): error.description
        }
    }
}

extension AccountFailure {
    /// Runs a store call for an account service; a failure there is told as one on this machine
    /// (`BackendError.local`: nothing was sent, and waiting does not mend it).
    static func storing<T>(_ body: () throws -> T) throws(AccountFailure) -> T {
        do {
            return try body()
        } catch {
            throw .backend(.local("the store failed: \(error)"))
        }
    }
}
