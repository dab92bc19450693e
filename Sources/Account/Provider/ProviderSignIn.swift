import Foundation
import Logging
import OAuth
import Shared
import Supabase

/// Sign-in with Google or GitHub through Supabase Auth, in the person's browser (`BrowserFlows`): the
/// state travels in `redirect_to`'s own query (Auth adds `code` beside it), and the code that comes back
/// is exchanged at `/token?grant_type=pkce`; the session is then like a password session.
public final class ProviderSignIn: Sendable {
    public static let defaultTimeout: Duration = .seconds(300)

    private let manager: SessionManager
    private let flows: BrowserFlows
    private let logger: Logger

    public init(manager: SessionManager, timeout: Duration = defaultTimeout, logger: Logger) {
        self.manager = manager
        flows = BrowserFlows(timeout: timeout)
        self.logger = logger
    }

    /// Opens the listener and answers where the browser starts.
    /// `returnTo`: the gallery's address, for a sign-in begun there (the browser's last page links back).
    public func start(_ provider: SignInProvider, returnTo: String? = nil) async throws -> BrowserFlowStart {
        let started: BrowserFlows.Started?
        do throws(BrowserFlowFailure) {
            started = try await flows.start(returnTo: returnTo) { redirectURI, state, challenge in
                manager.authorizeURL(provider: provider.rawValue, redirectTo: redirectURI + "?state=" + state, challenge: challenge)
            }
        } catch {
            throw ProviderSignInFailure(error)
        }
        guard let started else { throw AccountFailure.backend(.notConfigured) }
        logger.info("sign-in with \(provider.rawValue) begun", metadata: ["splashd_op": "login"])
        return BrowserFlowStart(flow: started.id, url: started.url, redirectUri: started.redirectURI, expiresAt: started.expiresAt)
    }

    /// Waits up to `wait` for the browser (or takes `pasted`, the address it ended on), then signs in.
    /// False: still waiting.
    public func finish(flow id: String, pasted: String?, wait: Duration) async throws -> Bool {
        let returned: BrowserFlows.Returned?
        do throws(BrowserFlowFailure) {
            returned = try await flows.finish(id: id, pasted: pasted, wait: wait)
        } catch {
            throw ProviderSignInFailure(error)
        }
        guard let returned else { return false }
        try await manager.signIn(code: returned.code, verifier: returned.verifier)
        return true
    }
}

/// A provider sign-in's browser flow that did not bring back a code (the daemon tells the person to
/// start again with `login --provider`).
public struct ProviderSignInFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var flow: BrowserFlowFailure

    public init(_ flow: BrowserFlowFailure) {
        self.flow = flow
    }

    public var description: String { flow.description }
}
