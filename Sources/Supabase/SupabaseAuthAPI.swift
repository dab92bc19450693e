import Foundation
import HTTP

/// Supabase Auth (`/auth/v1`): sign-up, the password and refresh-token grants, the user, logout.
/// Stateless: `SessionManager` decides what the answers mean for the session.
public struct SupabaseAuthAPI: Sendable {
    public let backend: SupabaseBackend

    public init(backend: SupabaseBackend) {
        self.backend = backend
    }

    /// `POST /signup`. Auto-confirming projects answer with a session; others with a bare user, which
    /// is reported as `.server` with code `email_not_confirmed` (there is nothing to sign in with yet).
    public func signUp(email: String, password: String, username: String) async throws(BackendError) -> Session {
        struct Body: Encodable {
            var email: String
            var password: String
            var data: [String: String]
        }
        let body = SupabaseBackend.json(Body(email: email, password: password, data: ["username": username]))
        let response = try await backend.send("POST", "/auth/v1/signup", body: body)
        if let session = try? Self.session(from: response) { return session }
        // 200 with a bare user: confirmation required.
        if (try? SupabaseBackend.decode(WireUser.self, from: response)) != nil {
            throw .server(SupabaseError(status: 200, code: "email_not_confirmed", message: "confirm the e-mail address, then sign in"))
        }
        return try Self.session(from: response)
    }

    /// `POST /token?grant_type=password`.
    public func signIn(email: String, password: String) async throws(BackendError) -> Session {
        let body = SupabaseBackend.json(["email": email, "password": password])
        let response = try await backend.send("POST", "/auth/v1/token", query: [("grant_type", "password")], body: body)
        return try Self.session(from: response)
    }

    /// `POST /token?grant_type=refresh_token`: the presented token is revoked and a child issued.
    public func refresh(refreshToken: String) async throws(BackendError) -> Session {
        let body = SupabaseBackend.json(["refresh_token": refreshToken])
        let response = try await backend.send("POST", "/auth/v1/token", query: [("grant_type", "refresh_token")], body: body)
        return try Self.session(from: response)
    }

    /// `POST /token?grant_type=pkce`: the code `/authorize` sent the browser back with, and the verifier
    /// whose challenge went out with it. A code works once, for five minutes.
    public func exchange(code: String, verifier: String) async throws(BackendError) -> Session {
        let body = SupabaseBackend.json(["auth_code": code, "code_verifier": verifier])
        let response = try await backend.send("POST", "/auth/v1/token", query: [("grant_type", "pkce")], body: body)
        return try Self.session(from: response)
    }

    /// Where the browser starts a sign-in with `provider` (`/authorize` needs no apikey): PKCE with an
    /// S256 challenge, back to `redirectTo`.
    public func authorizeURL(provider: String, redirectTo: String, challenge: String) -> String {
        let query = [
            ("provider", provider), ("redirect_to", redirectTo), ("code_challenge", challenge), ("code_challenge_method", "s256"),
        ]
        return backend.baseURL + "/auth/v1/authorize?" + query.map { "\($0.0)=\(SupabaseBackend.escape($0.1))" }.joined(separator: "&")
    }

    /// `GET /user` with the user's token: confirms the session is alive and returns the user.
    public func user(accessToken: String) async throws(BackendError) -> SessionUser {
        let response = try await backend.send("GET", "/auth/v1/user", bearer: accessToken)
        return try SupabaseBackend.decode(WireUser.self, from: response).sessionUser
    }

    /// `POST /logout?scope=local`: ends this session only (other devices stay signed in).
    public func signOut(accessToken: String) async throws(BackendError) {
        _ = try await backend.send("POST", "/auth/v1/logout", query: [("scope", "local")], bearer: accessToken, timeout: .seconds(5))
    }

    static func session(from response: HTTPResponse, now: Date = Date()) throws(BackendError) -> Session {
        let wire = try SupabaseBackend.decode(WireSession.self, from: response)
        guard !wire.accessToken.isEmpty, !wire.refreshToken.isEmpty else {
            throw .malformed(status: response.status, detail: "the session has empty tokens")
        }
        // The lifetime counted on this machine's clock: `expires_at` is the server's clock, and with the
        // server minutes behind, a short-lived token would look expired on arrival and be refreshed in a
        // loop. `expires_at` only when the lifetime is missing.
        let expiresAt = wire.expiresIn.map { now.addingTimeInterval($0) }
            ?? wire.expiresAt.map { Date(timeIntervalSince1970: $0) }
            ?? now.addingTimeInterval(3600)
        return Session(
            accessToken: wire.accessToken, refreshToken: wire.refreshToken, expiresAt: expiresAt,
            obtainedAt: now, user: wire.user.sessionUser)
    }
}

/// The session object as Auth sends it.
struct WireSession: Decodable {
    var accessToken: String
    var refreshToken: String
    var expiresIn: Double?
    var expiresAt: Double?
    var user: WireUser

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", refreshToken = "refresh_token", expiresIn = "expires_in"
        case expiresAt = "expires_at", user
    }
}

/// The user object as Auth sends it; only what the daemon keeps.
struct WireUser: Decodable {
    var id: String
    var email: String?
    var createdAt: String?
    var lastSignInAt: String?
    var userMetadata: [String: JSONScalar]?

    enum CodingKeys: String, CodingKey {
        case id, email, createdAt = "created_at", lastSignInAt = "last_sign_in_at", userMetadata = "user_metadata"
    }

    var sessionUser: SessionUser {
        var username: String?
        if case .string(let name)? = userMetadata?["username"] { username = name }
        return SessionUser(
            id: id, email: email ?? "", createdAt: createdAt.flatMap(SupabaseTime.parse),
            lastSignInAt: lastSignInAt.flatMap(SupabaseTime.parse), metadataUsername: username)
    }
}

/// A metadata value: strings are kept, anything else is accepted and ignored.
enum JSONScalar: Decodable {
    case string(String)
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .string(text)
        } else {
            self = .other
        }
    }
}
