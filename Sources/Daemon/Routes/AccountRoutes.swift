import Account
import Control
import Shared
import Supabase

/// The Account capability's methods: auth.*, profile.*, users.*. Without a capability (tests that
/// build a bare router) every method is still routed and answers that accounts are unavailable.
enum AccountRoutes {
    static func register(
        into router: inout Router, account: AccountCapability?, state: DaemonState, guests: GuestCapability?, gallery: GalleryCapability?
    ) {
        let unavailable = CapabilityMissing("accounts")

        router.register(SignupRequest.self) { request, _ in
            guard let account else { throw unavailable }
            try await account.manager.signUp(email: request.email, password: request.password, username: request.username)
            return await Self.afterSignIn(account, guests: guests, adoptGuest: request.adoptGuest == true)
        }
        router.register(LoginRequest.self) { request, _ in
            guard let account else { throw unavailable }
            try await account.manager.signIn(email: request.email, password: request.password)
            return await Self.afterSignIn(account, guests: guests, adoptGuest: request.adoptGuest == true)
        }
        router.register(ProviderLoginRequest.self) { request, connection in
            guard let account else { throw unavailable }
            // Begun in the gallery: the browser's last page links back to it.
            let returnTo = connection.transport == .gallery ? gallery?.pageAddress(screen: "account") : nil
            return try await account.providers.start(request.provider, returnTo: returnTo)
        }
        router.register(ProviderFinishRequest.self) { request, _ in
            guard let account else { throw unavailable }
            let done = try await account.providers.finish(
                flow: request.flow, pasted: request.callbackUrl, wait: .seconds(request.waitSeconds ?? 60))
            guard done else { return ProviderFinishResult(signedIn: false) }
            return ProviderFinishResult(signedIn: true, account: await Self.afterSignIn(account, guests: guests, adoptGuest: request.adoptGuest == true))
        }
        router.register(LogoutRequest.self) { _, _ in
            guard let account else { throw unavailable }
            return try await account.manager.signOut()
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

    /// Sign-in and sign-up already waited on the network; one more round trip fetches the profile so
    /// the answer carries the server's username. A failure there is not the sign-in's failure. Then
    /// the guest's likes and edits: adopted when asked (or when an adoption into this account was cut
    /// short), otherwise counted in the answer, so that the client can offer to adopt them.
    private static func afterSignIn(_ account: AccountCapability, guests: GuestCapability?, adoptGuest: Bool) async -> WhoamiResult {
        let user = await account.manager.currentUser
        if let user {
            try? await account.profiles.pull(userId: user.id)
            await account.profiles.push()
        }
        var result = await account.whoami()
        guard let guests, let user else { return result }
        (result.adopted, result.guest) = guests.afterSignIn(accountId: user.id, adopt: adoptGuest)
        return result
    }
}
