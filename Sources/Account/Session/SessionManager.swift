import Foundation
import Logging
import Shared
import Store

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

    private let auth: SupabaseAuthAPI?
    private let file: SessionFile
    private let accounts: AccountStore
    private let logger: Logger
    private let publish: @Sendable (AccountStatus) -> Void
    private var onOnline: @Sendable () -> Void = {}
    /// Where a request's network failure goes when a connectivity monitor judges reachability (nil:
    /// this manager judges by itself, from its own requests).
    private var onNetworkFailure: (@Sendable (String) -> Void)?

    private var session: Session?
    private var username: String?
    /// `GET /user` has accepted this session since the daemon started (or it was signed in or
    /// refreshed here). Until then the refresh service asks, so that a session ended elsewhere while
    /// splashd was stopped is learnt at once; it does not decide online or offline.
    private var confirmed = false
    /// The server can be reached: the connectivity monitor's verdict when there is one, else whether
    /// the last call reached it.
    private var reachable = true
    /// Bumped on every sign-in and sign-out, so an answer that arrives for an older session is dropped.
    private var generation = 0
    private var refreshTask: Task<RefreshOutcome, Never>?
    private var schedule = RefreshSchedule()
    private var signedOutReason: String?
    private var sleeper: Task<Void, Never>?
    /// Refresh requests sent (for tests and the log).
    public private(set) var refreshesSent = 0

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
    public var lastSignedOutReason: String? { signedOutReason }
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
        case .corrupt(let movedTo, let reason):
            signedOutReason = "the session file \(reason); it was moved to \(movedTo); sign in again"
            logger.warning("session file unreadable; starting signed out", metadata: [
                "splashd_op": "session_restore", "splashd_path": "\(movedTo)", "splashd_reason": "\(reason)",
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
        guard let auth else { throw .backend(.notConfigured) }
        let session: Session
        do {
            session = try await auth.signIn(email: email, password: password)
        } catch {
            noteReachability(error)
            throw .backend(error)
        }
        install(session, username: nil)
    }

    public func signUp(email: String, password: String, username: String) async throws(AccountFailure) {
        guard let auth else { throw .backend(.notConfigured) }
        let session: Session
        do {
            session = try await auth.signUp(email: email, password: password, username: username)
        } catch {
            noteReachability(error)
            throw .backend(error)
        }
        install(session, username: session.user.metadataUsername ?? username)
    }

    /// Signs out here at once, then tells the server (best effort). Returns the account's id, how many
    /// of its changes stay queued, and whether the server heard of it.
    public func signOut() async throws(AccountFailure) -> LogoutResult {
        guard let ended = session else { throw .notSignedIn("not signed in") }
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

    private func install(_ fresh: Session, username given: String?) {
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
    private func clearSession(reason: String?) {
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

    private func persist(_ session: Session) {
        do {
            try file.save(session)
        } catch {
            // Kept in memory: the daemon works until it restarts, then asks for a sign-in.
            logger.error("cannot save the session", metadata: ["splashd_op": "session_save", "splashd_error": "\(error)"])
        }
    }

    // MARK: - Tokens

    /// A usable access token, refreshed first when due. Offline with a token that has not expired yet,
    /// the old token is returned (the request may still work); expired and unrefreshable: `.backend`.
    public func accessToken() async throws(AccountFailure) -> String {
        guard let current = session else { throw .notSignedIn(notSignedInMessage) }
        if current.isRefreshDue() {
            let outcome = await refresh()
            if case .failed(let error) = outcome, session?.isExpired() == true {
                throw .backend(error)
            }
        }
        guard let valid = session else { throw .notSignedIn(notSignedInMessage) }
        return valid.accessToken
    }

    /// Runs `body` with the user's access token; on an expired-token answer (401, `bad_jwt`,
    /// `PGRST303`) refreshes once (shared with every other caller) and runs it again.
    public func authorized<T: Sendable>(
        _ body: @Sendable (String) async throws(BackendError) -> T
    ) async throws(AccountFailure) -> T {
        let token = try await accessToken()
        do {
            let result = try await body(token)
            noteReachable()
            return result
        } catch let error where error.serverError?.isExpiredToken == true {
            await refreshAfterUnauthorized(token)
            let second = try await accessToken()
            do {
                let result = try await body(second)
                noteReachable()
                return result
            } catch {
                noteReachability(error)
                throw .backend(error)
            }
        } catch {
            noteReachability(error)
            throw .backend(error)
        }
    }

    /// A request with `failedToken` was refused as expired. Refresh unless someone already did.
    public func refreshAfterUnauthorized(_ failedToken: String) async {
        guard let current = session, current.accessToken == failedToken else { return }
        _ = await refresh()
    }

    /// Refreshes the session, joining the refresh already in flight if there is one. After a failed
    /// attempt, callers get that failure until the backoff ends (`force` skips the wait): a storm of
    /// requests during an outage or a rate limit does not turn into a storm of refreshes.
    @discardableResult
    public func refresh(force: Bool = false) async -> RefreshOutcome {
        if let running = refreshTask { return await running.value }
        if !force, let failure = schedule.pendingFailure() { return .failed(failure) }
        let task = Task { await self.performRefresh() }
        refreshTask = task
        return await task.value
    }

    private func performRefresh() async -> RefreshOutcome {
        defer { refreshTask = nil }
        guard let auth else { return .failed(.notConfigured) }
        guard let presented = session else { return .signedOut }
        let startedGeneration = generation
        refreshesSent += 1
        do {
            let fresh = try await auth.refresh(refreshToken: presented.refreshToken)
            guard startedGeneration == generation, session != nil else { return .signedOut }
            // Disk first: a crash after this line still has a token the server accepts.
            persist(fresh)
            session = fresh
            let wasOnline = reachable
            confirmed = true
            reachable = true
            schedule.succeeded()
            logger.debug("session refreshed", metadata: ["splashd_op": "session_refresh", "splashd_expires": "\(fresh.expiresAt)"])
            publishStatus()
            wake()
            if !wasOnline { onOnline() }
            return .refreshed
        } catch {
            guard startedGeneration == generation, session != nil else { return .signedOut }
            if let server = error.serverError, server.endsSession {
                let kept = accounts.changesKept(accountId: presented.user.id)
                let reason = "the server ended the session (\(server.code ?? "?")); sign in again — \(kept) queued change(s) are kept for this account"
                logger.warning("signed out by the server", metadata: [
                    "splashd_op": "session_refresh", "splashd_account": "\(presented.user.id)",
                    "splashd_code": "\(server.code ?? "")", "splashd_outbox_kept": "\(kept)",
                ])
                clearSession(reason: reason)
                return .signedOut
            }
            let delay = schedule.refreshFailed(error)
            if error.isNetwork { networkFailed(error) }
            let level: Logger.Level = schedule.failures == 1 ? .notice : .debug
            logger.log(level: level, "session refresh failed; keeping the session", metadata: [
                "splashd_op": "session_refresh", "splashd_error": "\(error)", "splashd_retry_in_s": "\(Int(delay))",
            ])
            publishStatus()
            return .failed(error)
        }
    }

    /// After a start offline: one `GET /user` to learn whether the restored session still stands.
    private func confirm() async {
        guard let auth, let current = session, !confirmed else { return }
        let startedGeneration = generation
        logger.debug("confirming the restored session with the server", metadata: ["splashd_op": "session_confirm"])
        do {
            let user = try await auth.user(accessToken: current.accessToken)
            guard startedGeneration == generation else { return }
            let wasReachable = reachable
            confirmed = true
            reachable = true
            schedule.succeeded()
            try? accounts.recordSignIn(user, username: nil)
            logger.info("session confirmed by the server", metadata: ["splashd_op": "session_confirm"])
            publishStatus()
            if !wasReachable { onOnline() }
        } catch {
            guard startedGeneration == generation else { return }
            if error.isTransient {
                let delay = schedule.confirmationFailed(error)
                logger.log(level: schedule.failures == 1 ? .notice : .debug, "cannot confirm the session with the server; working offline", metadata: [
                    "splashd_op": "session_confirm", "splashd_error": "\(error)", "splashd_retry_in_s": "\(Int(delay))",
                ])
                if error.isNetwork { networkFailed(error) }
                publishStatus()
            } else {
                // Expired token, revoked session, deleted user: the refresh decides (and applies the
                // rule that only the session-ending codes sign out).
                await refresh()
            }
        }
    }

    // MARK: - The refresh service's side

    /// When the refresh service should next act: nil while signed out.
    public func nextDue() -> Date? {
        guard auth != nil, let current = session else { return nil }
        return schedule.nextDue(for: current, confirmed: confirmed)
    }

    /// Does whatever is due: confirm a restored session, or refresh.
    public func runDue() async {
        guard let current = session, let due = nextDue(), due <= Date() else { return }
        if !confirmed && !current.isRefreshDue() {
            await confirm()
        } else {
            await refresh(force: true)
        }
    }

    /// Sleeps until `nextDue()`, or until the session changes (sign-in, sign-out, refresh), or the
    /// calling task is cancelled. Signed out, nothing is due: it sleeps until woken. Signed in, sleeps
    /// are capped at an hour so that a wall-clock jump (suspend, NTP) is noticed.
    public func sleepUntilDue() async {
        let delay = nextDue().map { min($0.timeIntervalSinceNow, 3600) } ?? 365 * 86_400
        guard delay > 0 else { return }
        let sleeper = Task<Void, Never> { _ = try? await Task.sleep(for: .seconds(delay), clock: .continuous) }
        self.sleeper = sleeper
        await withTaskCancellationHandler {
            await sleeper.value
        } onCancel: {
            sleeper.cancel()
        }
    }

    /// The connectivity monitor's verdict on the backend. Account and connectivity states must not
    /// contradict each other: a backend that answers its health probe ends "signed in, offline" at
    /// once, even while a restored session's confirmation is still on its way over a slow network
    /// (that confirmation is sent now, not after its backoff; a session the server ended still signs
    /// out when its answer comes), and a backend that stopped answering makes the session offline.
    public func backendReachabilityChanged(_ answers: Bool) {
        guard session != nil else { return }
        if answers {
            schedule.retryNow()
            if !confirmed { wake() }
            noteReachable()
        } else if reachable {
            reachable = false
            publishStatus()
        }
    }

    private func wake() {
        sleeper?.cancel()
        sleeper = nil
    }

    // MARK: - Helpers

    private var notSignedInMessage: String {
        signedOutReason.map { "not signed in: \($0)" } ?? "not signed in; run: splashctl login --email <address>"
    }

    private func noteReachable() {
        guard session != nil, !reachable else { return }
        reachable = true
        publishStatus()
        onOnline()
    }

    private func noteReachability(_ error: BackendError) {
        if error.isNetwork {
            guard reachable else { return }
            networkFailed(error)
            publishStatus()
        } else if case .server = error {
            noteReachable()
        }
    }

    /// A request did not reach the server: the monitor decides, when there is one.
    private func networkFailed(_ error: BackendError) {
        if let onNetworkFailure {
            onNetworkFailure(error.description)
        } else {
            reachable = false
        }
    }

    private func publishStatus() {
        publish(status)
    }
}
