import Foundation
import Logging
import Shared
import Store
import Supabase
import Support
import Synchronization

/// The signed-in account's profile (`public.profiles` through PostgREST). A username change is applied
/// to the store at once and queued in the outbox in the same transaction, then pushed when online. A
/// name the server refuses (409 / 23505: taken) leaves the op `rejected` with the server's reason.
public final class ProfileService: Sendable {
    private let manager: SessionManager
    private let backend: SupabaseBackend?
    private let profiles: ProfileStore
    /// Stamps a rename with its moment on the server's clock.
    private let clock: ServerClock?
    private let logger: Logger
    private let profileChanged: @Sendable (Profile) -> Void
    private let pushing = Mutex(PushState())

    private struct PushState {
        var running = false
        var again = false
        /// Callers that came during a push: they return when the round they asked for has ended.
        var waiting: [CheckedContinuation<Bool, Never>] = []
        var timer: Task<Void, Never>?
    }

    public init(
        manager: SessionManager, backend: SupabaseBackend?, store: Store, clock: ServerClock? = nil, logger: Logger,
        profileChanged: @escaping @Sendable (Profile) -> Void
    ) {
        self.clock = clock
        self.manager = manager
        self.backend = backend
        self.profiles = ProfileStore(store: store)
        self.logger = logger
        self.profileChanged = profileChanged
        do {
            try profiles.recoverInFlight()
        } catch {
            logger.error("cannot recover in-flight profile changes", metadata: ["splashd_op": "push", "splashd_error": "\(error)"])
        }
    }

    // MARK: - Control requests

    public func get(refresh: Bool) async throws(AccountFailure) -> ProfileResult {
        guard let user = await manager.currentUser else { throw await notSignedIn() }
        var fresh = false
        var stale = false
        if refresh {
            do {
                try await pull(userId: user.id)
                fresh = true
            } catch .backend(let error) where error.isTransient || error == .notConfigured {
                stale = true
            }
        }
        if !fresh, await manager.status.state != .signedIn { stale = true }
        guard let profile = try AccountFailure.storing({ try profiles.profile(user.id) }) else { throw await notSignedIn() }
        return ProfileResult(profile: profile, stale: stale, fetchedAt: try AccountFailure.storing { try profiles.fetchedAt(user.id) })
    }

    public func setUsername(_ username: String) async throws(AccountFailure) -> SetUsernameResult {
        // The request's own validation refuses such a name first; nothing reaches the server.
        if let problem = AccountRules.usernameProblem(username) { throw .backend(.local("refusing the username: \(problem.english)")) }
        guard let user = await manager.currentUser else { throw await notSignedIn() }
        let actedAt = clock?.now() ?? Date()
        let opId = try AccountFailure.storing { try profiles.setUsername(username, userId: user.id, actedAt: actedAt) }
        guard let profile = try AccountFailure.storing({ try profiles.profile(user.id) }) else { throw await notSignedIn() }
        if opId != nil {
            logger.info("username changed here; queued", metadata: ["splashd_op": "profile_set_username", "splashd_account": "\(user.id)"])
            await manager.setUsername(username, for: user.id)
            profileChanged(profile)
            pushSoon()
        }
        return SetUsernameResult(profile: profile, opId: opId)
    }

    /// The profile as the store holds it (no network).
    public func localProfile(_ userId: String) -> Profile? {
        try? profiles.profile(userId)
    }

    // MARK: - Pull

    /// Reads the profile from the server and applies it (the server wins unless a change is queued).
    public func pull(userId: String) async throws(AccountFailure) {
        guard let backend else { throw .backend(.notConfigured) }
        let rows = try await manager.authorized { token throws(BackendError) in
            let response = try await backend.send(
                "GET", "/rest/v1/profiles",
                query: [("select", WireProfile.columns), ("id", "eq.\(userId)")],
                bearer: token)
            return try SupabaseBackend.decode([WireProfile].self, from: response)
        }
        guard let remote = rows.first(where: { $0.id.lowercased() == userId.lowercased() }) else { return }
        let changed: Bool
        do {
            changed = try profiles.applyPulled(remote.pulled, userId: userId)
        } catch {
            logger.error("cannot store the pulled profile", metadata: ["splashd_op": "pull", "splashd_error": "\(error)"])
            return
        }
        if changed, let profile = try? profiles.profile(userId) {
            await manager.setUsername(profile.username, for: userId)
            profileChanged(profile)
        }
    }

    // MARK: - Push

    /// Starts pushing queued profile changes of the signed-in account (returns at once).
    public func pushSoon() {
        Task { await self.push() }
    }

    /// Pushes queued profile changes of the signed-in account until none is due. One push runs at a
    /// time; a call during a push makes it go round once more and returns when that round has ended,
    /// so `sync.now`, which waits for the outbox after this returns, hears of the push it started.
    public func push() async {
        let proceed = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let first = pushing.withLock { state in
                if state.running {
                    state.again = true
                    state.waiting.append(continuation)
                    return false
                }
                state.running = true
                return true
            }
            if first { continuation.resume(returning: true) }
        }
        guard proceed else { return }
        while true {
            await pushDue()
            let (again, waiting) = pushing.withLock { state in
                if state.again {
                    state.again = false
                    return (true, [CheckedContinuation<Bool, Never>]())
                }
                state.running = false
                defer { state.waiting = [] }
                return (false, state.waiting)
            }
            if !again {
                for waiter in waiting { waiter.resume(returning: false) }
                return
            }
        }
    }

    private func pushDue() async {
        // Signed in, online or not, as the push engine has it: "offline" is the session's last word,
        // and a request that fails is postponed. Waiting for "online" here parked the change for good
        // when the account's last request had failed while the connectivity monitor, whose return to
        // online is what says "online" again, never saw the backend go.
        guard let backend, let user = await manager.currentUser, await manager.status.state != .signedOut else { return }
        while true {
            let claimed: (op: ProfileStore.QueuedOp?, nextDue: Date?)
            do {
                claimed = try profiles.claimNext(userId: user.id)
            } catch {
                logger.error("cannot read the outbox", metadata: ["splashd_op": "push", "splashd_error": "\(error)"])
                return
            }
            guard let op = claimed.op else {
                if let due = claimed.nextDue { schedule(at: due) }
                return
            }
            guard await send(op, userId: user.id, backend: backend) else { return }
        }
    }

    /// Sends one op; returns whether to go on with the next.
    private func send(_ op: ProfileStore.QueuedOp, userId: String, backend: SupabaseBackend) async -> Bool {
        let body = SupabaseBackend.json([
            "username": op.username, "username_set_at": op.stamp.wireText, "username_set_by": op.stamp.device,
        ])
        let result: Result<[WireProfile], AccountFailure>
        do {
            let rows = try await manager.authorized { token throws(BackendError) in
                let response = try await backend.send(
                    "PATCH", "/rest/v1/profiles", query: [("id", "eq.\(userId)"), ("select", WireProfile.columns)], body: body, bearer: token,
                    headers: [("Prefer", "return=representation")])
                return try SupabaseBackend.decode([WireProfile].self, from: response)
            }
            result = .success(rows)
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let rows) where !rows.isEmpty:
            let gaveWay = (try? profiles.acknowledge(op, userId: userId, kept: rows[0].pulled)) ?? false
            if gaveWay {
                logger.info("username change gave way to a later one made on another device", metadata: [
                    "splashd_op": "push", "splashd_entity": "profile", "splashd_op_id": "\(op.opId)",
                ])
                if let profile = try? profiles.profile(userId) { await manager.setUsername(profile.username ?? rows[0].username, for: userId) }
            } else {
                logger.info("username pushed", metadata: ["splashd_op": "push", "splashd_entity": "profile", "splashd_op_id": "\(op.opId)"])
            }
            if let profile = try? profiles.profile(userId) { profileChanged(profile) }
            return true
        case .success:
            reject(op, userId: userId, reason: "the server has no profile for this account (nothing was updated)")
            return true
        case .failure(.notSignedIn):
            try? profiles.release(op)
            return false
        case .failure(.backend(let error)) where error.isTransient || error == .notConfigured:
            let delay = Backoff.requests.delay(afterFailures: op.attempts, retryAfter: error.serverError?.retryAfterDuration).timeInterval
            try? profiles.postpone(op, until: Date().addingTimeInterval(delay), error: error.description)
            logger.debug("username push postponed", metadata: ["splashd_op": "push", "splashd_error": "\(error)", "splashd_retry_in_s": "\(Int(delay))"])
            schedule(at: Date().addingTimeInterval(delay))
            return false
        case .failure(.backend(let error)):
            let server = error.serverError
            let reason = server?.isConflict == true
                ? "the username '\(op.username)' is already taken (\(server?.message ?? "conflict"))"
                : "the server refused the username '\(op.username)': \(server?.message ?? error.description)"
            reject(op, userId: userId, reason: reason)
            // The server's own name is the truth again; fetch it so the store shows it.
            try? await pull(userId: userId)
            return true
        }
    }

    private func reject(_ op: ProfileStore.QueuedOp, userId: String, reason: String) {
        try? profiles.reject(op, userId: userId, reason: reason)
        logger.warning("username change rejected", metadata: [
            "splashd_op": "push", "splashd_entity": "profile", "splashd_op_id": "\(op.opId)", "splashd_reason": "\(reason)",
        ])
        if let profile = try? profiles.profile(userId) { profileChanged(profile) }
    }

    /// One timer for the earliest postponed op; a new one replaces it.
    private func schedule(at date: Date) {
        let delay = max(0.05, date.timeIntervalSinceNow)
        let timer = Task { [weak self] in
            guard (try? await Task.sleep(for: .seconds(delay))) != nil else { return }
            await self?.push()
        }
        pushing.withLock { state in
            state.timer?.cancel()
            state.timer = timer
        }
    }

    private func notSignedIn() async -> AccountFailure {
        let reason = await manager.lastSignedOutReason
        return .notSignedIn(reason.map { .notSignedInBecause(why: $0) } ?? .notSignedIn)
    }
}
