import Foundation
import HTTP
import Logging
import Shared
import Store
import Supabase
import Support

/// The Account capability's parts, built together: the session, the profile, the user lists, and the
/// service that keeps the session fresh. The daemon builds one and hands it to its routes.
public struct AccountCapability: Sendable {
    public let manager: SessionManager
    public let profiles: ProfileService
    public let users: UsersService
    public let refreshService: SessionRefreshService
    /// Sign-in with Google or GitHub through the account server.
    public let providers: ProviderSignIn
    /// The configured backend (one HTTP client for the process), for other capabilities to share; nil
    /// when no server is configured.
    public let backend: SupabaseBackend?
    /// The server's clock as this device knows it, from the backend's answers (stamps actions).
    public let clock: ServerClock

    public struct Callbacks: Sendable {
        public var accountChanged: @Sendable (AccountStatus) -> Void
        public var profileChanged: @Sendable (Profile) -> Void

        public init(accountChanged: @escaping @Sendable (AccountStatus) -> Void, profileChanged: @escaping @Sendable (Profile) -> Void) {
            self.accountChanged = accountChanged
            self.profileChanged = profileChanged
        }
    }

    /// `backendURL` and `anonKey` nil: no server; a saved session still restores, and everything that
    /// needs the server says so.
    public init(
        backendURL: String?, anonKey: String?, http: HTTPClient?, store: Store, stateDirectory: String, logger: Logger,
        clock: ServerClock = ServerClock(device: .system()), callbacks: Callbacks
    ) {
        var backend: SupabaseBackend?
        if let backendURL, let anonKey, let http { backend = SupabaseBackend(http: http, baseURL: backendURL, anonKey: anonKey, clock: clock) }
        self.clock = clock
        manager = SessionManager(
            auth: backend.map(SupabaseAuthAPI.init(backend:)), file: SessionFile(directory: stateDirectory),
            accounts: AccountStore(store: store), logger: logger, publish: callbacks.accountChanged)
        profiles = ProfileService(
            manager: manager, backend: backend, store: store, clock: clock, logger: logger, profileChanged: callbacks.profileChanged)
        users = UsersService(backend: backend, store: store)
        self.backend = backend
        refreshService = SessionRefreshService(manager: manager)
        providers = ProviderSignIn(manager: manager, logger: logger)
    }

    /// Restores the saved session without touching the network and arranges for queued profile changes
    /// to go out whenever the server is reachable. Call before the daemon reports ready.
    public func start() async {
        let profiles = self.profiles
        await manager.setOnOnline { profiles.pushSoon() }
        await manager.restore()
    }

    /// The account as `auth.whoami` reports it.
    public func whoami() async -> WhoamiResult {
        let status = await manager.status
        let profile = status.userId.flatMap(profiles.localProfile)
        return WhoamiResult(
            account: status, profile: profile, sessionExpiresAt: await manager.sessionExpiresAt,
            signedOutReason: status.state == .signedOut ? await manager.lastSignedOutReason?.english : nil)
    }
}
