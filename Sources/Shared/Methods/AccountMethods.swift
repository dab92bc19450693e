import Foundation

// The Account capability: sign-up, sign-in, the profile and what the server says about other users.
// Passwords travel only in `auth.login` and `auth.signup` params (over the 0600, peer-checked socket);
// no result ever carries a password or a token.

/// Rules shared by the daemon and splashctl, so both refuse the same input with the same words.
public enum AccountRules {
    public static let usernameLength = 3...32
    public static let maxEmailLength = 254
    public static let passwordLength = 6...72

    /// Nil if `username` is acceptable, else why not.
    public static func usernameProblem(_ username: String) -> DaemonText? {
        guard usernameLength.contains(username.count) else {
            return .usernameLength(minimum: usernameLength.lowerBound, maximum: usernameLength.upperBound, given: username.count)
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_")
        guard username.allSatisfy(allowed.contains) else {
            return .usernameCharacters
        }
        return nil
    }

    /// Nil if `email` looks like an address, else why not. The server has the last word.
    public static func emailProblem(_ email: String) -> DaemonText? {
        if email.isEmpty { return .emailRequired }
        if email.utf8.count > maxEmailLength { return .emailTooLong(maximum: maxEmailLength) }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
              !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { return .notAnEmail(email: String(email.prefix(64))) }
        return nil
    }

    public static func passwordProblem(_ password: String) -> DaemonText? {
        if password.isEmpty { return .passwordRequired }
        if password.utf8.count > passwordLength.upperBound { return .passwordTooLong(maximum: passwordLength.upperBound) }
        return nil
    }
}

/// `auth.signup`: creates an account on the server and signs in to it.
public struct SignupRequest: RPCRequest {
    public typealias Result = WhoamiResult
    public static let method = "auth.signup"
    public static let summary = "Creates an account (e-mail, password, username) and signs in to it."
    public static let parameters = [
        ParameterDoc("email", "string", required: true, "The account's e-mail address."),
        ParameterDoc("password", "string", required: true, "6 to 72 characters; never logged or echoed."),
        ParameterDoc("username", "string", required: true, "3 to 32 of a-z, 0-9 and '_'."),
        ParameterDoc("adopt_guest", "boolean", "Bring the likes and edits made here signed out (the guest's) into the account: they are queued for the server like any other change. Default false: they stay on this machine as the guest's (guest.adopt brings them later)."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .conflict, .rejected, .rateLimited, .offline]
    public static let example = SignupRequest(email: "ana@example.com", password: "correct horse", username: "ana")
    public static let resultExample = WhoamiResult.example

    public var email: String
    public var password: String
    public var username: String
    public var adoptGuest: Bool?

    public init(email: String, password: String, username: String, adoptGuest: Bool? = nil) {
        self.email = email
        self.password = password
        self.username = username
        self.adoptGuest = adoptGuest
    }

    public func validate() throws(RPCError) {
        if let problem = AccountRules.emailProblem(email) { throw .invalidInput(problem, field: "email") }
        if let problem = AccountRules.passwordProblem(password) { throw .invalidInput(problem, field: "password") }
        if let problem = AccountRules.usernameProblem(username) { throw .invalidInput(problem, field: "username") }
    }
}

/// `auth.login`: signs in with e-mail and password.
public struct LoginRequest: RPCRequest {
    public typealias Result = WhoamiResult
    public static let method = "auth.login"
    public static let summary = "Signs in with e-mail and password; the session is kept and refreshed by the daemon."
    public static let parameters = [
        ParameterDoc("email", "string", required: true, "The account's e-mail address."),
        ParameterDoc("password", "string", required: true, "Never logged or echoed."),
        ParameterDoc("adopt_guest", "boolean", "Bring the likes and edits made here signed out (the guest's) into the account: they are queued for the server like any other change. Default false: they stay on this machine as the guest's (guest.adopt brings them later)."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .rejected, .rateLimited, .offline]
    public static let example = LoginRequest(email: "ana@example.com", password: "correct horse")
    public static let resultExample = WhoamiResult.example

    public var email: String
    public var password: String
    public var adoptGuest: Bool?

    public init(email: String, password: String, adoptGuest: Bool? = nil) {
        self.email = email
        self.password = password
        self.adoptGuest = adoptGuest
    }

    public func validate() throws(RPCError) {
        if let problem = AccountRules.emailProblem(email) { throw .invalidInput(problem, field: "email") }
        if let problem = AccountRules.passwordProblem(password) { throw .invalidInput(problem, field: "password") }
    }
}

/// `auth.logout`: ends the session here and on the server; queued changes stay for that account.
public struct LogoutRequest: RPCRequest {
    public typealias Result = LogoutResult
    public static let method = "auth.logout"
    public static let summary = "Signs out (the server is told when reachable); queued changes are kept for the account."
    public static let errors: [ErrorKind] = [.notSignedIn]
    public static let example = LogoutRequest()
    public static let resultExample = LogoutResult(signedOut: true, userId: "6f1c0d3e-8f9a-4b55-9d3a-0d1b2c3d4e5f", keptOutbox: 2, serverNotified: true)
    public init() {}
}

public struct LogoutResult: Codable, Sendable, Equatable {
    public var signedOut: Bool
    public var userId: String
    /// Changes still queued for this account; they are pushed when it signs in again.
    public var keptOutbox: Int
    /// False when the server could not be reached (the local session is gone anyway).
    public var serverNotified: Bool

    public init(signedOut: Bool, userId: String, keptOutbox: Int, serverNotified: Bool) {
        self.signedOut = signedOut
        self.userId = userId
        self.keptOutbox = keptOutbox
        self.serverNotified = serverNotified
    }
}

/// `auth.whoami`: the account as the daemon knows it, without waiting on the network.
public struct WhoamiRequest: RPCRequest {
    public typealias Result = WhoamiResult
    public static let method = "auth.whoami"
    public static let summary = "Who is signed in, the session's expiry and why the last session ended; never waits on the network."
    public static let example = WhoamiRequest()
    public static let resultExample = WhoamiResult.example
    public init() {}
}

public struct WhoamiResult: Codable, Sendable, Equatable {
    public var account: AccountStatus
    public var profile: Profile?
    /// When the access token expires (the daemon refreshes it before then).
    public var sessionExpiresAt: Date?
    /// Why the last session ended, when it was not `auth.logout` (e.g. "the server revoked the session
    /// (session_not_found)").
    public var signedOutReason: String?
    /// After a sign-in with `adopt_guest`: the guest's likes and edits the account took in.
    public var adopted: GuestCounts?
    /// The guest's likes and edits still on this machine (not adopted), when there are any.
    public var guest: GuestCounts?

    public init(
        account: AccountStatus, profile: Profile? = nil, sessionExpiresAt: Date? = nil, signedOutReason: String? = nil,
        adopted: GuestCounts? = nil, guest: GuestCounts? = nil
    ) {
        self.account = account
        self.profile = profile
        self.sessionExpiresAt = sessionExpiresAt
        self.signedOutReason = signedOutReason
        self.adopted = adopted
        self.guest = guest
    }

    public static let example = WhoamiResult(
        account: AccountStatus(state: .signedIn, userId: "6f1c0d3e-8f9a-4b55-9d3a-0d1b2c3d4e5f", email: "ana@example.com", username: "ana"),
        profile: .example, sessionExpiresAt: Date(timeIntervalSince1970: 1_795_003_600))
}

/// A person's profile as the daemon holds it.
public struct Profile: Codable, Sendable, Equatable {
    public enum SyncState: String, Codable, Sendable {
        /// The server has this username.
        case synced
        /// Changed here, waiting to be pushed.
        case pending
        /// The server refused the last change; `rejectedReason` says why.
        case rejected
    }

    public var userId: String
    public var email: String
    public var username: String?
    public var createdAt: Date?
    public var lastSignInAt: Date?
    public var updatedAt: Date?
    public var sync: SyncState
    public var rejectedReason: String?

    public init(
        userId: String, email: String, username: String?, createdAt: Date?, lastSignInAt: Date?, updatedAt: Date?,
        sync: SyncState, rejectedReason: String? = nil
    ) {
        self.userId = userId
        self.email = email
        self.username = username
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
        self.updatedAt = updatedAt
        self.sync = sync
        self.rejectedReason = rejectedReason
    }

    public static let example = Profile(
        userId: "6f1c0d3e-8f9a-4b55-9d3a-0d1b2c3d4e5f", email: "ana@example.com", username: "ana",
        createdAt: Date(timeIntervalSince1970: 1_790_000_000), lastSignInAt: Date(timeIntervalSince1970: 1_795_000_000),
        updatedAt: Date(timeIntervalSince1970: 1_795_000_000), sync: .synced)
}

/// `profile.get`: the signed-in account's profile from the store; `refresh` fetches it first.
public struct ProfileGetRequest: RPCRequest {
    public typealias Result = ProfileResult
    public static let method = "profile.get"
    public static let summary = "The signed-in account's profile from the store; with refresh, fetched from the server first."
    public static let parameters = [
        ParameterDoc("refresh", "boolean", "Fetch from the server first (waits on the network; offline answers from the store, stale)."),
    ]
    public static let errors: [ErrorKind] = [.notSignedIn]
    public static let example = ProfileGetRequest(refresh: true)
    public static let resultExample = ProfileResult(profile: .example, stale: false, fetchedAt: Date(timeIntervalSince1970: 1_795_000_000))

    public var refresh: Bool?

    public init(refresh: Bool? = nil) {
        self.refresh = refresh
    }
}

public struct ProfileResult: Codable, Sendable, Equatable {
    public var profile: Profile
    /// True when the answer could not be checked with the server just now.
    public var stale: Bool
    /// When the profile was last read from the server.
    public var fetchedAt: Date?

    public init(profile: Profile, stale: Bool, fetchedAt: Date?) {
        self.profile = profile
        self.stale = stale
        self.fetchedAt = fetchedAt
    }
}

/// `profile.set_username`: applied here at once, queued, pushed when online.
public struct SetUsernameRequest: RPCRequest {
    public typealias Result = SetUsernameResult
    public static let method = "profile.set_username"
    public static let summary = "Sets the username here at once and queues it for the server; a name taken there is kept as rejected with the reason."
    public static let parameters = [ParameterDoc("username", "string", required: true, "3 to 32 of a-z, 0-9 and '_'.")]
    public static let errors: [ErrorKind] = [.invalidInput, .notSignedIn]
    public static let example = SetUsernameRequest(username: "ana_lima")
    public static let resultExample = SetUsernameResult(profile: .example, opId: "0b7e1c4a-4d8e-4f0a-9a53-3c1f7d9e2b10")

    public var username: String

    public init(username: String) {
        self.username = username
    }

    public func validate() throws(RPCError) {
        if let problem = AccountRules.usernameProblem(username) { throw .invalidInput(problem, field: "username") }
    }
}

public struct SetUsernameResult: Codable, Sendable, Equatable {
    public var profile: Profile
    /// The queued change (see the outbox); nil when nothing changed.
    public var opId: String?

    public init(profile: Profile, opId: String?) {
        self.profile = profile
        self.opId = opId
    }
}

/// `users.count`: how many people have an account, from the server or the cache.
public struct UsersCountRequest: RPCRequest {
    public typealias Result = UsersCountResult
    public static let method = "users.count"
    public static let summary = "How many accounts exist; answered from the cache (marked stale with its age) when offline."
    public static let errors: [ErrorKind] = [.offline]
    public static let example = UsersCountRequest()
    public static let resultExample = UsersCountResult(count: 1234, fetchedAt: Date(timeIntervalSince1970: 1_795_000_000), stale: false, ageSeconds: 0)
    public init() {}
}

public struct UsersCountResult: Codable, Sendable, Equatable {
    public var count: Int
    public var fetchedAt: Date
    public var stale: Bool
    public var ageSeconds: Double

    public init(count: Int, fetchedAt: Date, stale: Bool, ageSeconds: Double) {
        self.count = count
        self.fetchedAt = fetchedAt
        self.stale = stale
        self.ageSeconds = ageSeconds
    }
}

/// `users.recent`: the newest sign-ups (usernames only), from the server or the cache.
public struct UsersRecentRequest: RPCRequest {
    public typealias Result = UsersRecentResult
    public static let method = "users.recent"
    public static let summary = "The newest accounts (username and sign-up time); answered from the cache (stale) when offline."
    public static let parameters = [ParameterDoc("limit", "integer", "1 to \(maxLimit), default \(defaultLimit).")]
    public static let errors: [ErrorKind] = [.invalidInput, .offline]
    public static let example = UsersRecentRequest(limit: 10)
    public static let resultExample = UsersRecentResult(
        users: [RecentUser(username: "ana", createdAt: Date(timeIntervalSince1970: 1_790_000_000))],
        fetchedAt: Date(timeIntervalSince1970: 1_795_000_000), stale: false, ageSeconds: 0)

    public static let defaultLimit = 20
    public static let maxLimit = 100

    public var limit: Int?

    public init(limit: Int? = nil) {
        self.limit = limit
    }

    public func validate() throws(RPCError) {
        if let limit, !(1...Self.maxLimit).contains(limit) {
            throw .invalidInput(.mustBeBetweenNot(name: "limit", minimum: 1, maximum: Self.maxLimit, given: limit), field: "limit")
        }
    }
}

public struct RecentUser: Codable, Sendable, Equatable {
    public var username: String
    public var createdAt: Date

    public init(username: String, createdAt: Date) {
        self.username = username
        self.createdAt = createdAt
    }
}

public struct UsersRecentResult: Codable, Sendable, Equatable {
    public var users: [RecentUser]
    public var fetchedAt: Date
    public var stale: Bool
    public var ageSeconds: Double

    public init(users: [RecentUser], fetchedAt: Date, stale: Bool, ageSeconds: Double) {
        self.users = users
        self.fetchedAt = fetchedAt
        self.stale = stale
        self.ageSeconds = ageSeconds
    }
}

/// How many likes and edits the guest (signed out, on this machine) has.
public struct GuestCounts: Codable, Sendable, Equatable {
    public var likes: Int
    public var edits: Int

    public init(likes: Int, edits: Int) {
        self.likes = likes
        self.edits = edits
    }

    public var isEmpty: Bool { likes == 0 && edits == 0 }
}

/// `guest.status`: the likes and edits made here signed out, kept on this machine as the guest's.
public struct GuestStatusRequest: RPCRequest {
    public typealias Result = GuestCounts
    public static let method = "guest.status"
    public static let summary = "How many likes and edits were made here signed out (the guest's); they are never pushed unless an account adopts them."
    public static let example = GuestStatusRequest()
    public static let resultExample = GuestCounts(likes: 12, edits: 2)
    public init() {}
}

/// `guest.adopt`: brings the guest's likes and edits into the signed-in account.
public struct GuestAdoptRequest: RPCRequest {
    public typealias Result = GuestAdoptResult
    public static let method = "guest.adopt"
    public static let summary = "Brings the likes and edits made here signed out into the signed-in account; they are queued for the server. A like the account has already is merged."
    public static let errors: [ErrorKind] = [.notSignedIn]
    public static let example = GuestAdoptRequest()
    public static let resultExample = GuestAdoptResult(adopted: GuestCounts(likes: 12, edits: 2))
    public init() {}
}

public struct GuestAdoptResult: Codable, Sendable, Equatable {
    public var adopted: GuestCounts

    public init(adopted: GuestCounts) {
        self.adopted = adopted
    }
}
