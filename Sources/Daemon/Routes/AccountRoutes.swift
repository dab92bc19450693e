import Account
import Control
import Foundation
import HTTP
import Library
import Logging
import Shared
import Store
import Systemd

/// The Account capability's methods: auth.*, profile.*, users.*. Without a capability (tests that
/// build a bare router) every method is still routed and answers that accounts are unavailable.
enum AccountRoutes {
    static func register(into router: inout Router, account: AccountCapability?, state: DaemonState) {
        let unavailable = RPCError(.offline, "accounts are not available in this daemon (no account capability)")

        router.register(SignupRequest.self) { request, _ in
            guard let account else { throw unavailable }
            try await Self.answer { () async throws(AccountFailure) in
                try await account.manager.signUp(email: request.email, password: request.password, username: request.username)
            }
            return await Self.afterSignIn(account)
        }
        router.register(LoginRequest.self) { request, _ in
            guard let account else { throw unavailable }
            try await Self.answer { () async throws(AccountFailure) in
                try await account.manager.signIn(email: request.email, password: request.password)
            }
            return await Self.afterSignIn(account)
        }
        router.register(LogoutRequest.self) { _, _ in
            guard let account else { throw unavailable }
            return try await Self.answer { () async throws(AccountFailure) in try await account.manager.signOut() }
        }
        router.register(WhoamiRequest.self) { _, _ in
            guard let account else { return WhoamiResult(account: AccountStatus(state: .signedOut)) }
            return await account.whoami()
        }
        router.register(ProfileGetRequest.self) { request, _ in
            guard let account else { throw unavailable }
            return try await account.profiles.get(refresh: request.refresh ?? false)
        }
        router.register(SetUsernameRequest.self) { request, _ in
            guard let account else { throw unavailable }
            return try await account.profiles.setUsername(request.username)
        }
        router.register(UsersCountRequest.self) { _, _ in
            guard let account else { throw unavailable }
            return try await account.users.count()
        }
        router.register(UsersRecentRequest.self) { request, _ in
            guard let account else { throw unavailable }
            return try await account.users.recent(limit: request.limit ?? UsersRecentRequest.defaultLimit)
        }
    }

    /// Runs an account operation, putting its failure into the protocol's words.
    private static func answer<T>(_ body: () async throws(AccountFailure) -> T) async throws(RPCError) -> T {
        do {
            return try await body()
        } catch {
            throw error.rpcError
        }
    }

    /// Sign-in and sign-up already waited on the network; one more round trip fetches the profile so
    /// the answer carries the server's username. A failure there is not the sign-in's failure.
    private static func afterSignIn(_ account: AccountCapability) async -> WhoamiResult {
        if let user = await account.manager.currentUser {
            try? await account.profiles.pull(userId: user.id)
            await account.profiles.push()
        }
        return await account.whoami()
    }

    /// Builds the capability for the daemon: its HTTP client, the backend from the configuration, and
    /// callbacks into the daemon's state (account status, profile events, outbox counts).
    static func makeCapability(
        config: DaemonConfig, store: Store, state: DaemonState, library: PhotoLibrary, stateDirectory: String, logger: Logger
    ) -> AccountCapability {
        var http: HTTPClient?
        do {
            http = try HTTPClient(configuration: config.httpConfiguration, logger: Logger(label: "splashd.http"))
        } catch {
            logger.error("no HTTP client; accounts work offline only", metadata: ["splashd_op": "start", "splashd_error": "\(error)"])
        }
        if config.backendURL == nil || config.anonKey == nil {
            logger.notice("no backend configured (backend.url, backend.anon_key); accounts work offline only", metadata: ["splashd_op": "start"])
        }
        let notifier = SystemdNotifier()
        let callbacks = AccountCapability.Callbacks(
            accountChanged: { status in
                let before = state.current.account
                state.setAccount(status)
                if let counts = try? library.counts(accountId: status.userId ?? "") { state.setOutbox(counts.outbox) }
                // `systemctl status` shows the account as it is now (signed out by the server, offline, ...).
                if before != status { notifier.status(state.statusLine()) }
            },
            profileChanged: { profile in state.bus.publish(.profileUpdated(profile)) },
            outboxChanged: {
                if let counts = try? library.counts(accountId: state.current.account.userId ?? "") { state.setOutbox(counts.outbox) }
            })
        return AccountCapability(
            backendURL: config.backendURL, anonKey: config.anonKey, http: http, store: store, stateDirectory: stateDirectory,
            logger: logger, callbacks: callbacks)
    }
}
