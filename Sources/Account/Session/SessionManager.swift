import Foundation
import Logging
import Shared
import Store
import Supabase

/// Owns the session: sign-in, sign-up, sign-out, restore at start, and refresh.
///
/// Refresh is single-flight: however many callers find the token due or get a 401 at once, one refresh
/// request goes out and all of them wait for it. Only the four session-ending Auth codes sign out;
/// offline, 429, 5xx and unreadable answers keep the session and retry with backoff. Signing out never
/// touches the outbox or the library: their rows keep the account id and wait for that account.
public actor SessionManager {
    /// What a refresh attempt came to.
    public enum RefreshOutcome: Sendable, Equatable {
        case refreshed
        case signedOut
        case failed(BackendError)
    }

    // The state below is internal rather than private only so that the token side, carved out by job
    // into SessionManager+Refresh.swift, can reach it; nothing else in Account touches it.
    let auth: SupabaseAuthAPI?
    let file: SessionFile
    let accounts: AccountStore
    let logger: Logger
    let publish: @Sendable (AccountStatus) -> Void
    var onOnline: @Sendable () -> Void = {}
    /// Where a request's network failure goes when a connectivity monitor judges reachability (nil:
    /// this manager judges by itself, from its own requests).
    var onNetworkFailure: (@Sendable (String) -> Void)?

    var session: Session?
    var username: String?
    /// `GET /user` has accepted this session since the daemon started (or it was signed in or
    /// refreshed here). Until then the refresh service asks, so that a session ended elsewhere while
    /// splashd was stopped is learnt at once; it does not decide online or offline.
    var confirmed = false
    /// The server can be reached: the connectivity monitor's verdict when there is one, else whether
    /// the last call reached it.
    var reachable = true
    /// Bumped on every sign-in and sign-out, so an answer that arrives for an older session is dropped.
    var generation = 0
    var refreshTask: Task<RefreshOutcome, Never>?
    var schedule = RefreshSchedule()
    var signedOutReason: DaemonText?
    var sleeper: Task<Void, Never>?
    /// Refresh requests sent (for tests and the log).
    public internal(set) var refreshesSent = 0

    public init(
        auth: SupabaseAuthAPI?, file: SessionFile, accounts: AccountStore, logger: Logger,
        publish: @escaping @Sendable (AccountStatus) -> Void
    ) {
        self.auth = auth
        self.file = file
        self.accounts = accounts
        self.logger = logger
        self.publish = publish
    }

    /// Called whenever the server becomes reachable with a valid session (sign-in, confirmation,
    /// refresh after being offline): the moment to push queued changes.
    public func setOnOnline(_ hook: @escaping @Sendable () -> Void) {
        onOnline = hook
    }

    /// Hands reachability to the connectivity monitor: a request that fails on the network asks it to
    /// probe, and only its verdict (`backendReachabilityChanged`) makes the account offline. The two
    /// states then cannot contradict each other: one connection reset while the backend answers its
    /// probe left the account "offline" beside "online" until some later request happened to succeed.
    public func setOnNetworkFailure(_ hook: @escaping @Sendable (String) -> Void) {
        onNetworkFailure = hook
    }

    // MARK: - Reading

    public var status: AccountStatus {
        guard let session else { return AccountStatus(state: .signedOut) }
        return AccountStatus(
            state: reachable ? .signedIn : .signedInOffline, userId: session.user.id,
            email: session.user.email, username: username)
    }

    public var currentUser: SessionUser? { session?.user }
    public var sessionExpiresAt: Date? { session?.expiresAt }
    /// When the session's token is next refreshed (by the refresh service), nil while signed out.
    public var sessionRefreshDueAt: Date? { session?.refreshDueAt }
    public var lastSignedOutReason: DaemonText? { signedOutReason }
    public var isReachable: Bool { reachable }

    /// The username changed locally or on the server.
    public func setUsername(_ name: String?, for userId: String) {
        guard session?.user.id == userId, name != username else { return }
        username = name
        publishStatus()
    }

    // MARK: - Start

    /// Restores the session from disk without any network call (the daemon may start offline). A
    /// restored session is `signed_in_offline` until the backend is known to answer: its probe, the
    /// confirmation, or any request of the account's.
    public func restore() {
        switch file.load() {
        case .none:
            publishStatus()
        case .corrupt(let movedTo, let problem):
            signedOutReason = .sessionFileMovedAside(problem: problem, movedTo: movedTo)
            logger.warning("session file unreadable; starting signed out", metadata: [
                "splashd_op": "session_restore", "splashd_path": "\(movedTo)", "splashd_reason": "\(problem.english)",
            ])
            publishStatus()
        case .session(let restored):
            session = restored
            confirmed = false
            reachable = false
            let row = try? accounts.account(restored.user.id)
            username = row?.username ?? restored.user.metadataUsername
            if row == nil { try? accounts.recordSignIn(restored.user, username: username) }
            logger.info("session restored", metadata: ["splashd_op": "session_restore", "splashd_account": "\(restored.user.id)"])
            publishStatus()
        }
    }

    // MARK: - Sign-in, sign-up, sign-out

    public func signIn(email: String, password: String) async throws(AccountFailure) {
        let session = try await obtain { auth throws(BackendError) in try await auth.signIn(email: email, password: password) }
        install(session, username: nil)
    }

    /// Signs in with the code a provider sign-in brought back (`ProviderSignIn`).
    public func signIn(code: String, verifier: String) async throws(AccountFailure) {
        let session = try await obtain { auth throws(BackendError) in try await auth.exchange(code: code, verifier: verifier) }
        install(session, username: nil)
    }

    /// Where a provider sign-in's browser starts (nil: no account server).
    public nonisolated func authorizeURL(provider: String, redirectTo: String, challenge: String) -> String? {
        auth?.authorizeURL(provider: provider, redirectTo: redirectTo, challenge: challenge)
    }

    public func signUp(email: String, password: String, username: String) async throws(AccountFailure) {
        let session = try await obtain { auth throws(BackendError) in try await auth.signUp(email: email, password: password, username: username) }
        install(session, username: session.user.metadataUsername ?? username)
    }

    /// A new session from Auth, its failure noted for reachability.
    private func obtain(_ request: (SupabaseAuthAPI) async throws(BackendError) -> Session) async throws(AccountFailure) -> Session {
        guard let auth else { throw .backend(.notConfigured) }
        do {
            return try await request(auth)
        } catch {
            noteReachability(error)
            throw .backend(error)
        }
    }

    /// Signs out here at once, then tells the server (best effort). Returns the account's id, how many
    /// of its changes stay queued, and whether the server heard of it.
    public func signOut() async throws(AccountFailure) -> LogoutResult {
        guard let ended = session else { throw .notSignedIn(.notSignedIn) }
        clearSession(reason: nil)
        let kept = accounts.changesKept(accountId: ended.user.id)
        logger.notice("signed out", metadata: [
            "splashd_op": "logout", "splashd_account": "\(ended.user.id)", "splashd_outbox_kept": "\(kept)",
        ])
        var notified = false
        if let auth {
            do {
                try await auth.signOut(accessToken: ended.accessToken)
                notified = true
            } catch {
                // 401/403/404: the server had already forgotten the session, which is what was asked.
                if let server = error.serverError, [401, 403, 404].contains(server.status) { notified = true }
            }
        }
        return LogoutResult(signedOut: true, userId: ended.user.id, keptOutbox: kept, serverNotified: notified)
    }

    func install(_ fresh: Session, username given: String?) {
        if let previous = session, previous.user.id != fresh.user.id {
            try? accounts.markSignedOut(previous.user.id)
        }
        generation += 1
        session = fresh
        confirmed = true
        reachable = true
        schedule.succeeded()
        signedOutReason = nil
        persist(fresh)
        do {
            try accounts.recordSignIn(fresh.user, username: given)
        } catch {
            logger.error("cannot record the account", metadata: ["splashd_op": "login", "splashd_error": "\(error)"])
        }
        username = (try? accounts.account(fresh.user.id))?.username ?? given ?? fresh.user.metadataUsername
        logger.notice("signed in", metadata: ["splashd_op": "login", "splashd_account": "\(fresh.user.id)"])
        publishStatus()
        wake()
        onOnline()
    }

    /// Ends the session locally. `reason` nil: the person asked; otherwise the server ended it.
    func clearSession(reason: DaemonText?) {
        guard let ended = session else { return }
        generation += 1
        session = nil
        username = nil
        confirmed = false
        schedule.succeeded()
        signedOutReason = reason
        do {
            try file.remove()
        } catch {
            logger.error("cannot remove the session file", metadata: ["splashd_op": "logout", "splashd_error": "\(error)"])
        }
        try? accounts.markSignedOut(ended.user.id)
        publishStatus()
        wake()
    }

    func persist(_ session: Session) {
        do {
            try file.save(session)
        } catch {
            // Kept in memory: the daemon works until it restarts, then asks for a sign-in.
            logger.error("cannot save the session", metadata: ["splashd_op": "session_save", "splashd_error": "\(error)"])
        }
    }

    // MARK: - Helpers

    var notSignedInMessage: DaemonText {
        signedOutReason.map { .notSignedInBecause(why: $0) } ?? .notSignedIn
    }

    func noteReachable() {
        guard session != nil, !reachable else { return }
        reachable = true
        publishStatus()
        onOnline()
    }

    func noteReachability(_ error: BackendError) {
        if error.isNetwork {
            guard reachable else { return }
            networkFailed(error)
            publishStatus()
        } else if case .server = error {
            noteReachable()
        }
    }

    /// A request did not reach the server: the monitor decides, when there is one.
    func networkFailed(_ error: BackendError) {
        if let onNetworkFailure {
            onNetworkFailure(error.description)
        } else {
            reachable = false
        }
    }

    func publishStatus() {
        publish(status)
    }
}
