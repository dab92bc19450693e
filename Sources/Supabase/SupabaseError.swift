import Foundation
import HTTP

/// A non-2xx answer from Auth or PostgREST, read from whichever error shape the server used:
/// Auth with `X-Supabase-Api-Version` (`{"code":"weak_password","message"}`), Auth without it
/// (`{"code":422,"error_code":"weak_password","msg"}` plus `x-sb-error-code`), OAuth
/// (`{"error","error_description"}`) and PostgREST (`{"code":"23505","message","details","hint"}`).
public struct SupabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    /// The machine-readable code (`invalid_credentials`, `23505`, `PGRST303`, ...), when there is one.
    public var code: String?
    public var message: String
    /// `weak_password.reasons` (`length`, `characters`, `pwned`).
    public var weakPasswordReasons: [String]
    /// Seconds from `Retry-After`, when sent.
    public var retryAfter: Double?
    /// `Retry-After` as a duration, for `Backoff.delay(afterFailures:retryAfter:)`.
    public var retryAfterDuration: Duration? { retryAfter.map { .seconds($0) } }
    /// The body was not one of the known JSON shapes (a proxy's HTML page, garbage).
    public var unreadable: Bool

    public init(
        status: Int, code: String?, message: String, weakPasswordReasons: [String] = [], retryAfter: Double? = nil,
        unreadable: Bool = false
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.weakPasswordReasons = weakPasswordReasons
        self.retryAfter = retryAfter
        self.unreadable = unreadable
    }

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        let retryAfter = headers["Retry-After"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        guard let object else {
            self.init(
                status: status, code: headers["x-sb-error-code"], message: "HTTP \(status) with an unreadable body",
                retryAfter: retryAfter, unreadable: true)
            return
        }
        func text(_ key: String) -> String? { (object[key] as? String).flatMap { $0.isEmpty ? nil : $0 } }
        let code = text("error_code") ?? text("code") ?? text("error") ?? headers["x-sb-error-code"]
        let message = text("msg") ?? text("message") ?? text("error_description") ?? "HTTP \(status)"
        let reasons = ((object["weak_password"] as? [String: Any])?["reasons"] as? [Any])?.compactMap { $0 as? String } ?? []
        self.init(
            status: status, code: code, message: message, weakPasswordReasons: reasons, retryAfter: retryAfter,
            unreadable: code == nil && object["message"] == nil && object["msg"] == nil)
    }

    /// The refresh errors after which the session can never come back: only these sign out.
    public static let sessionEndingCodes: Set<String> = [
        "refresh_token_not_found", "refresh_token_already_used", "session_not_found", "session_expired",
    ]

    public var endsSession: Bool { code.map(Self.sessionEndingCodes.contains) ?? false }

    /// Worth retrying later with the same request: timeouts, rate limits, server failures, and a server
    /// whose schema is older than this version needs (the request stands once the migration is applied).
    public var isTransient: Bool { status == 408 || status == 429 || status >= 500 || missingMigration != nil }

    /// The migration (a file of supabase/migrations) a server must apply before it takes what this
    /// version sends, when its answer says it lacks a column that migration adds.
    public var missingMigration: String? {
        guard status == 400 || status == 404, ["PGRST204", "42703", "PGRST202"].contains(code ?? "") else { return nil }
        return ServerSchema.additions.first { message.contains("'\($0.name)'") || message.contains(".\($0.name)") || message.contains(" \($0.name) ") }?
            .migration
    }

    /// An expired or unusable access token: refresh, then retry once.
    public var isExpiredToken: Bool {
        status == 401 || code == "bad_jwt" || code == "PGRST303" || code == "PGRST301"
    }

    /// A uniqueness conflict (PostgREST 409 / Postgres 23505).
    public var isConflict: Bool { status == 409 || code == "23505" }

    public var description: String {
        if let missingMigration {
            return "HTTP \(status): the account server's database lacks the migration \(missingMigration) "
                + "(apply supabase/migrations with `supabase db push`); the changes wait until it is applied (\(message))"
        }
        return "HTTP \(status)" + (code.map { " \($0)" } ?? "") + ": \(message)"
    }
}

/// What this version needs of the server's schema beyond the first migrations: each column it reads or
/// writes and each function it calls that a later migration adds, with the migration's name, so that a
/// server without it is told apart from a refusal and named.
public enum ServerSchema {
    public static let lastWordWins = "20250101000700_last_word_wins.sql"
    public static let pushInOneTransaction = "20250101000800_push_in_one_transaction.sql"

    /// Each column or function, with the migration that adds it.
    public static let additions: [(name: String, migration: String)] = [
        ("acted_at", lastWordWins), ("acted_by", lastWordWins), ("username_set_at", lastWordWins), ("username_set_by", lastWordWins),
        ("original_sha256", lastWordWins), ("original_note", lastWordWins),
        ("push_likes", pushInOneTransaction), ("written_by", pushInOneTransaction),
    ]
}

/// Why a call to the backend did not give a usable answer.
public enum BackendError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No backend URL or anon key configured.
    case notConfigured
    /// The server could not be reached (DNS, refused, reset, timeout, TLS).
    case network(HTTPError)
    /// The server answered with an error status.
    case server(SupabaseError)
    /// A 2xx answer whose body is not what the API promises.
    case malformed(status: Int, detail: String)
    /// Nothing was sent: what was to be sent cannot be read or made on this machine (a file gone, a
    /// payload this version cannot read). Waiting does not mend it.
    case local(String)

    /// Keep the session and try again later.
    public var isTransient: Bool {
        switch self {
        case .notConfigured: false
        case .network: true
        case .server(let error): error.isTransient || error.unreadable
        case .malformed: true
        case .local: false
        }
    }

    public var isNetwork: Bool {
        if case .network = self { return true }
        return false
    }

    public var serverError: SupabaseError? {
        if case .server(let error) = self { return error }
        return nil
    }

    public var description: String {
        switch self {
        case .notConfigured: "no account server is configured"
        case .network(let error): "cannot reach the account server: \(error)"
        case .server(let error): "the account server answered \(error)"
        case .malformed(let status, let detail): "the account server sent an unreadable answer (HTTP \(status)): \(detail)"
        case .local(let detail): "on this machine: \(detail)"
        }
    }
}
