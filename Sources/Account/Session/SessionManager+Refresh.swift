import Foundation
import Logging
import Shared
import Store
import Supabase

/// The token side of the session: handing out access tokens, the single-flight refresh, the restored
/// session's confirmation, and what the refresh service calls to sleep until something is due.
extension SessionManager {
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

    func performRefresh() async -> RefreshOutcome {
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
                let reason = DaemonText.serverEndedSession(code: server.code ?? "?", keptChanges: kept)
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
    func confirm() async {
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

    func wake() {
        sleeper?.cancel()
        sleeper = nil
    }

    /// The machine woke from sleep: what is due (a refresh, a confirmation) is looked at again now by
    /// the wall clock, not when a sleep that did not count the time asleep ends.
    public func machineResumed() {
        wake()
    }
}
