import Foundation
import Logging
import OAuth
import Shared
import Synchronization

/// Sign-in with Google or GitHub through Supabase Auth, as a desktop program does it (RFC 8252, PKCE):
/// a verifier and a state made here, a listener on 127.0.0.1 for the browser's one return, the code it
/// brings exchanged for a session, which from then on is like a password session. The state travels in
/// `redirect_to`'s own query (Auth adds `code` beside it), so a callback that is not this sign-in's is
/// refused before anything is sent.
///
/// Each sign-in is a flow named by a random id; `finish` is asked until the browser is back (each ask
/// waits a while; the control socket's idle timeout must not cut a long one). The listener closes after
/// its one answer, when the flow is given up, or after `timeout` (five minutes).
public final class ProviderSignIn: Sendable {
    private struct Flow: Sendable {
        var pkce: PKCE
        var state: String
        var listener: LoopbackRedirect
        var expiresAt: Date
    }

    public static let defaultTimeout: Duration = .seconds(300)

    private let manager: SessionManager
    private let timeout: Duration
    private let logger: Logger
    private let flows = Mutex<[String: Flow]>([:])

    public init(manager: SessionManager, timeout: Duration = defaultTimeout, logger: Logger) {
        self.manager = manager
        self.timeout = timeout
        self.logger = logger
    }

    /// Opens the listener and answers where the browser starts.
    public func start(_ provider: SignInProvider) async throws -> ProviderLoginStart {
        let pkce = PKCE.make()
        let state = PKCE.randomToken(bytes: 16)
        let listener: LoopbackRedirect
        do {
            listener = try await LoopbackRedirect.open(timeout: timeout) { query in Self.page(for: query, state: state) }
        } catch {
            throw ProviderSignInFailure.cannotListen(detail: "\(error)")
        }
        let redirectTo = listener.redirectURI + "?state=" + state
        guard let url = manager.authorizeURL(provider: provider.rawValue, redirectTo: redirectTo, challenge: pkce.challenge) else {
            listener.close()
            throw AccountFailure.backend(.notConfigured)
        }
        let id = PKCE.randomToken(bytes: 9)
        let expiresAt = Date().addingTimeInterval(TimeInterval(timeout.components.seconds))
        flows.withLock { flows in
            // Flows whose listener has closed are of no use to anyone: dropped as new ones begin.
            flows = flows.filter { $0.value.listener.isOpen }
            flows[id] = Flow(pkce: pkce, state: state, listener: listener, expiresAt: expiresAt)
        }
        logger.info("sign-in with \(provider.rawValue) begun", metadata: ["splashd_op": "login", "splashd_port": "\(listener.port)"])
        return ProviderLoginStart(flow: id, url: url, redirectUri: listener.redirectURI, expiresAt: expiresAt)
    }

    /// Waits up to `wait` for the browser (or takes `pasted`, the address it ended on), then signs in.
    /// False: still waiting. A flow ends with its first answer, right or wrong.
    public func finish(flow id: String, pasted: String?, wait: Duration) async throws -> Bool {
        guard let flow = flows.withLock({ $0[id] }) else { throw ProviderSignInFailure.unknownFlow }
        let query: [String: String]
        if let pasted {
            flows.withLock { _ = $0.removeValue(forKey: id) }
            flow.listener.close()
            guard let parsed = Self.callbackQuery(pasted, redirectURI: flow.listener.redirectURI) else {
                throw ProviderSignInFailure.notACallback(url: String(pasted.prefix(200)))
            }
            query = parsed
        } else {
            let outcome = await flow.listener.outcome(within: wait)
            switch outcome {
            case nil:
                return false
            case .closed?:
                flows.withLock { _ = $0.removeValue(forKey: id) }
                throw ProviderSignInFailure.unknownFlow
            case .timedOut?:
                flows.withLock { _ = $0.removeValue(forKey: id) }
                throw ProviderSignInFailure.timedOut(minutes: Int(timeout.components.seconds / 60))
            case .callback(let parameters)?:
                flows.withLock { _ = $0.removeValue(forKey: id) }
                query = parameters
            }
        }
        let code = try Self.code(in: query, state: flow.state)
        try await manager.signIn(code: code, verifier: flow.pkce.verifier)
        return true
    }

    /// The code a callback brought, its state checked first.
    static func code(in query: [String: String], state: String) throws -> String {
        guard query["state"] == state else { throw ProviderSignInFailure.wrongState }
        if let error = query["error"] {
            throw ProviderSignInFailure.refused(error: error, description: query["error_description"] ?? query["error_code"] ?? "")
        }
        guard let code = query["code"], !code.isEmpty else { throw ProviderSignInFailure.noCode }
        return code
    }

    /// The query of a pasted callback address: the listener's own address (any port: the browser may
    /// have been elsewhere), nil for anything else.
    static func callbackQuery(_ pasted: String, redirectURI: String) -> [String: String]? {
        guard let components = URLComponents(string: pasted.trimmingCharacters(in: .whitespacesAndNewlines)),
              components.scheme == "http", components.host == "127.0.0.1", components.path == "/callback"
        else { return nil }
        return LoopbackRedirect.query(of: components)
    }

    /// What the browser is shown: the sign-in's verdict as far as the listener can tell.
    static func page(for query: [String: String], state: String) -> LoopbackRedirect.Page {
        guard query["state"] == state else {
            return LoopbackRedirect.Page(status: 400, title: "Not this sign-in", message: "This address does not belong to the sign-in splashctl began. Nothing was signed in; start again with splashctl login --provider.")
        }
        if let error = query["error"] {
            return LoopbackRedirect.Page(status: 400, title: "Sign-in refused", message: "\(query["error_description"] ?? error). You can close this tab.")
        }
        guard query["code"]?.isEmpty == false else {
            return LoopbackRedirect.Page(status: 400, title: "Sign-in incomplete", message: "The answer carried no code. Start again with splashctl login --provider.")
        }
        // The code is exchanged after this page is sent: the terminal says whether the sign-in succeeded.
        return LoopbackRedirect.Page(status: 200, title: "Back to splashd", message: "The sign-in finishes in the terminal. You can close this tab.")
    }
}
