import Foundation
import HTTP
import Logging
import OAuth

/// splashd's authorisation with Google, apart from the account: a Desktop client's loopback flow with
/// PKCE (RFC 8252; Google's device flow does not allow the Photos picker scope), tokens kept in a 0600
/// file, the access token refreshed when it is about to expire (one refresh at a time: this is an
/// actor), revoked on disconnect. A refresh token Google refuses (revoked behind splashd's back, or
/// unused for six months) ends the connection, with the reason kept for `google status`; nothing
/// imported goes with it.
public actor GoogleAuthorization {
    public struct Status: Sendable, Equatable {
        public var connected: Bool
        public var scope: String?
        public var expiresAt: Date?
        public var connectedAt: Date?
        /// Why the last connection ended, when Google ended it.
        public var endedBecause: String?
    }

    private let settings: GoogleSettings
    private let http: HTTPClient
    private let file: GoogleTokenFile
    private let flows: BrowserFlows
    private let logger: Logger
    private var tokens: GoogleTokens?
    private var endedBecause: String?
    /// Told why, when Google ended the connection (not when the person disconnected).
    private let ended: @Sendable (String) -> Void
    public private(set) var refreshesSent = 0

    public init(
        settings: GoogleSettings, http: HTTPClient, stateDirectory: String, timeout: Duration = .seconds(300), logger: Logger,
        ended: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.ended = ended
        self.settings = settings
        self.http = http
        file = GoogleTokenFile(directory: stateDirectory)
        flows = BrowserFlows(timeout: timeout)
        self.logger = logger
        tokens = file.load()
    }

    public var status: Status {
        Status(connected: tokens != nil, scope: tokens?.scope, expiresAt: tokens?.expiresAt, connectedAt: tokens?.connectedAt, endedBecause: endedBecause)
    }

    // MARK: Connecting

    /// Opens the listener and answers where the browser starts (Google's consent screen).
    public func connectStart() async throws(GoogleFailure) -> BrowserFlows.Started {
        let settings = self.settings
        let started: BrowserFlows.Started?
        do throws(BrowserFlowFailure) {
            started = try await flows.start { redirectURI, state, challenge in
                let query = [
                    ("client_id", settings.clientId), ("redirect_uri", redirectURI), ("response_type", "code"),
                    ("scope", GoogleSettings.scope), ("code_challenge", challenge), ("code_challenge_method", "S256"),
                    ("state", state), ("access_type", "offline"), ("prompt", "consent"),
                ]
                return settings.authURL + "?" + FormEncoding.encoded(query)
            }
        } catch {
            throw .flow(error)
        }
        guard let started else { throw .notConfigured }
        logger.info("connecting to Google", metadata: ["splashd_op": "google"])
        return started
    }

    /// Waits up to `wait` for the browser (or takes `pasted`), then exchanges the code for tokens and
    /// keeps them. False: still waiting.
    public func connectFinish(flow id: String, pasted: String?, wait: Duration) async throws(GoogleFailure) -> Bool {
        let returned: BrowserFlows.Returned?
        do throws(BrowserFlowFailure) {
            returned = try await flows.finish(id: id, pasted: pasted, wait: wait)
        } catch {
            throw .flow(error)
        }
        guard let returned else { return false }
        // The person may untick the scope on the consent screen: nothing to keep then.
        if let granted = returned.query["scope"], !granted.split(separator: " ").contains(Substring(GoogleSettings.scope)) {
            throw .scopeNotGranted
        }
        let answer = try await tokenRequest([
            ("client_id", settings.clientId), ("client_secret", settings.clientSecret), ("code", returned.code),
            ("code_verifier", returned.verifier), ("grant_type", "authorization_code"), ("redirect_uri", returned.redirectURI),
        ])
        guard let refresh = answer.refreshToken else { throw .unreachable("Google's answer had no refresh token") }
        guard answer.scope.map({ $0.split(separator: " ").contains(Substring(GoogleSettings.scope)) }) ?? true else { throw .scopeNotGranted }
        let now = Date()
        try keep(GoogleTokens(
            accessToken: answer.accessToken, refreshToken: refresh, expiresAt: now.addingTimeInterval(answer.expiresIn ?? 3600),
            scope: answer.scope ?? GoogleSettings.scope, connectedAt: now))
        endedBecause = nil
        logger.notice("connected to Google", metadata: ["splashd_op": "google"])
        return true
    }

    // MARK: Using and ending

    /// An access token valid for at least a minute more, refreshed first when needed.
    public func accessToken() async throws(GoogleFailure) -> String {
        guard let current = tokens else { throw .notConnected(reason: endedBecause) }
        if current.expiresAt.timeIntervalSinceNow > 60 { return current.accessToken }
        return try await refresh()
    }

    /// Refreshes the access token now.
    @discardableResult
    public func refresh() async throws(GoogleFailure) -> String {
        guard var current = tokens else { throw .notConnected(reason: endedBecause) }
        refreshesSent += 1
        let answer: TokenAnswer
        do {
            answer = try await tokenRequest([
                ("client_id", settings.clientId), ("client_secret", settings.clientSecret), ("grant_type", "refresh_token"),
                ("refresh_token", current.refreshToken),
            ])
        } catch .refused(let error, let description) where error == "invalid_grant" {
            // Revoked behind splashd's back, or expired: the connection is over; what was imported stays.
            let reason = "Google refused the refresh token (\(error): \(description))"
            forget(reason: reason)
            throw .notConnected(reason: reason)
        }
        current.accessToken = answer.accessToken
        current.expiresAt = Date().addingTimeInterval(answer.expiresIn ?? 3600)
        if let scope = answer.scope { current.scope = scope }
        try keep(current)
        return current.accessToken
    }

    /// Revokes the grant (best effort: Google may be unreachable; the tokens are forgotten here anyway)
    /// and removes the tokens' file. Whether Google heard of it.
    public func disconnect() async throws(GoogleFailure) -> Bool {
        guard let current = tokens else { throw .notConnected(reason: endedBecause) }
        forget(reason: nil)
        do {
            let response = try await http.send(HTTPRequest(
                method: "POST", url: settings.revokeURL, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array(FormEncoding.encoded([("token", current.refreshToken)]).utf8), timeout: .seconds(10)))
            // 400: the grant was already gone, which is what was asked.
            return response.isSuccess || response.status == 400
        } catch {
            return false
        }
    }

    private func forget(reason: String?) {
        tokens = nil
        endedBecause = reason
        file.remove()
        logger.notice("disconnected from Google", metadata: ["splashd_op": "google", "splashd_reason": "\(reason ?? "asked")"])
        if let reason { ended(reason) }
    }

    private func keep(_ fresh: GoogleTokens) throws(GoogleFailure) {
        do {
            try file.save(fresh)
        } catch {
            throw .local("cannot keep Google's tokens: \(error)")
        }
        tokens = fresh
    }

    // MARK: The token endpoint

    struct TokenAnswer: Decodable {
        var accessToken: String
        var expiresIn: Double?
        var refreshToken: String?
        var scope: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token", expiresIn = "expires_in", refreshToken = "refresh_token", scope
        }
    }

    struct ErrorAnswer: Decodable {
        var error: String
        var errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case error, errorDescription = "error_description"
        }
    }

    private func tokenRequest(_ form: [(String, String)]) async throws(GoogleFailure) -> TokenAnswer {
        let response: HTTPResponse
        do {
            response = try await http.send(HTTPRequest(
                method: "POST", url: settings.tokenURL, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                body: Array(FormEncoding.encoded(form).utf8), timeout: .seconds(30)))
        } catch {
            throw .unreachable("\(error)")
        }
        guard response.isSuccess else {
            if let refusal = try? JSONDecoder().decode(ErrorAnswer.self, from: Data(response.body)) {
                throw .refused(error: refusal.error, description: refusal.errorDescription ?? "HTTP \(response.status)")
            }
            throw .unreachable("HTTP \(response.status) from Google's token endpoint")
        }
        guard let answer = try? JSONDecoder().decode(TokenAnswer.self, from: Data(response.body)), !answer.accessToken.isEmpty else {
            throw .unreachable("an answer from Google's token endpoint splashd cannot read")
        }
        return answer
    }

}
