import Foundation
import Synchronization

/// Why a browser flow did not bring back a code.
public enum BrowserFlowFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No flow of that name: never begun, finished already, or given up.
    case unknownFlow
    /// The browser did not come back before the listener gave up.
    case timedOut(minutes: Int)
    /// The callback carried another state than the one this flow sent: not its answer.
    case wrongState
    /// The provider refused (`error=access_denied`, …), in its words.
    case refused(error: String, description: String)
    /// The callback had neither a code nor an error.
    case noCode
    /// A pasted address that is not this flow's callback.
    case notACallback(url: String)
    /// The listener could not be opened.
    case cannotListen(detail: String)

    public var description: String {
        switch self {
        case .unknownFlow: "no such sign-in (finished, given up, or never begun)"
        case .timedOut(let minutes): "the browser did not come back within \(minutes) minutes"
        case .wrongState: "the callback's state is not this sign-in's"
        case .refused(let error, let description): "refused: \(error) (\(description))"
        case .noCode: "the callback carried no code"
        case .notACallback(let url): "not this sign-in's callback address: \(url)"
        case .cannotListen(let detail): "cannot listen on 127.0.0.1: \(detail)"
        }
    }
}

/// Authorisation in the person's browser, as a desktop program does it (RFC 8252 with PKCE): a
/// verifier and a state made here, a one-shot listener on 127.0.0.1 for the browser's return, and the
/// code it brings, checked against the state, handed back with the verifier to exchange. Each flow is
/// named by a random id; `finish` is asked until the browser is back (each ask waits a while: the
/// control socket's idle timeout must not cut one long wait). A flow ends with its first answer, right
/// or wrong, when given up, or after `timeout`.
///
/// The authorisation address is the caller's (Supabase Auth and Google carry the state differently).
public final class BrowserFlows: Sendable {
    public struct Started: Sendable, Equatable {
        public var id: String
        public var url: String
        public var redirectURI: String
        public var expiresAt: Date
    }

    /// A code the browser brought back, with what its exchange needs.
    public struct Returned: Sendable, Equatable {
        public var code: String
        public var verifier: String
        public var redirectURI: String
        /// The callback's other parameters (Google's `scope`).
        public var query: [String: String]
    }

    private struct Flow: Sendable {
        var pkce: PKCE
        var state: String
        var listener: LoopbackRedirect
    }

    public let timeout: Duration
    private let flows = Mutex<[String: Flow]>([:])

    public init(timeout: Duration = .seconds(300)) {
        self.timeout = timeout
    }

    /// Opens the listener; `url` makes the authorisation address from the redirect URI, the state and
    /// the challenge (nil: it cannot, and nothing is left listening).
    /// `returnTo`: the address of the gallery that began the sign-in, which the browser's last page
    /// links back to; nil for one begun in the terminal.
    public func start(
        returnTo: String? = nil, url: (_ redirectURI: String, _ state: String, _ challenge: String) -> String?
    ) async throws(BrowserFlowFailure) -> Started? {
        let pkce = PKCE.make()
        let state = PKCE.randomToken(bytes: 16)
        let listener: LoopbackRedirect
        do {
            listener = try await LoopbackRedirect.open(timeout: timeout) { query in Self.page(for: query, state: state, returnTo: returnTo) }
        } catch {
            throw .cannotListen(detail: "\(error)")
        }
        guard let address = url(listener.redirectURI, state, pkce.challenge) else {
            listener.close()
            return nil
        }
        let id = PKCE.randomToken(bytes: 9)
        flows.withLock { flows in
            // Flows whose listener has closed are of no use to anyone: dropped as new ones begin.
            flows = flows.filter { $0.value.listener.isOpen }
            flows[id] = Flow(pkce: pkce, state: state, listener: listener)
        }
        return Started(
            id: id, url: address, redirectURI: listener.redirectURI,
            expiresAt: Date().addingTimeInterval(TimeInterval(timeout.components.seconds)))
    }

    /// Waits up to `wait` for the browser (or takes `pasted`, the address it ended on): the code, its
    /// state checked; nil while still waiting.
    public func finish(id: String, pasted: String?, wait: Duration) async throws(BrowserFlowFailure) -> Returned? {
        guard let flow = flows.withLock({ $0[id] }) else { throw .unknownFlow }
        let query: [String: String]
        if let pasted {
            end(id, flow)
            guard let parsed = Self.callbackQuery(pasted) else { throw .notACallback(url: String(pasted.prefix(200))) }
            query = parsed
        } else {
            switch await flow.listener.outcome(within: wait) {
            case nil:
                return nil
            case .closed?:
                end(id, flow)
                throw .unknownFlow
            case .timedOut?:
                end(id, flow)
                throw .timedOut(minutes: Int(timeout.components.seconds / 60))
            case .callback(let parameters)?:
                end(id, flow)
                query = parameters
            }
        }
        return Returned(code: try Self.code(in: query, state: flow.state), verifier: flow.pkce.verifier, redirectURI: flow.listener.redirectURI, query: query)
    }

    private func end(_ id: String, _ flow: Flow) {
        flows.withLock { _ = $0.removeValue(forKey: id) }
        flow.listener.close()
    }

    /// The code a callback brought, its state checked first.
    static func code(in query: [String: String], state: String) throws(BrowserFlowFailure) -> String {
        guard query["state"] == state else { throw .wrongState }
        if let error = query["error"] {
            throw .refused(error: error, description: query["error_description"] ?? query["error_code"] ?? "")
        }
        guard let code = query["code"], !code.isEmpty else { throw .noCode }
        return code
    }

    /// The query of a pasted callback address (any port: the browser may have been elsewhere), nil
    /// for anything else.
    static func callbackQuery(_ pasted: String) -> [String: String]? {
        guard let components = URLComponents(string: pasted.trimmingCharacters(in: .whitespacesAndNewlines)),
              components.scheme == "http", components.host == "127.0.0.1", components.path == "/callback"
        else { return nil }
        return LoopbackRedirect.query(of: components)
    }

    /// What the browser is shown: the flow's verdict as far as the listener can tell, and the way back
    /// to where the sign-in began (the terminal, or the gallery's page, linked).
    static func page(for query: [String: String], state: String, returnTo: String? = nil) -> LoopbackRedirect.Page {
        let there = returnTo == nil ? "in the terminal" : "in the gallery"
        let link = returnTo.map { LoopbackRedirect.Page.Link(words: "Back to the gallery", url: $0) }
        guard query["state"] == state else {
            return LoopbackRedirect.Page(
                status: 400, title: "Not this sign-in",
                message: "This address does not belong to the sign-in splashd began. Nothing was signed in; start again \(there).", link: link)
        }
        if let error = query["error"] {
            return LoopbackRedirect.Page(
                status: 400, title: "Sign-in refused", message: "\(query["error_description"] ?? error). You can close this tab.", link: link)
        }
        guard query["code"]?.isEmpty == false else {
            return LoopbackRedirect.Page(status: 400, title: "Sign-in incomplete", message: "The answer carried no code. Start again \(there).", link: link)
        }
        // The code is exchanged after this page is sent: the terminal or the gallery says whether it worked.
        return LoopbackRedirect.Page(
            status: 200, title: "Back to splashd", message: "The sign-in finishes \(there). You can close this tab.", link: link)
    }
}
