import Foundation

/// A signed-in session: the tokens and who they belong to. Kept in memory by `SessionManager` and on
/// disk by `SessionFile`; never sent to a control client.
public struct Session: Codable, Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    /// When the access token expires, on this machine's clock (`expires_in` after it arrived).
    public var expiresAt: Date
    /// When this token was issued here; with `expiresAt` it gives the token's lifetime.
    public var obtainedAt: Date
    public var user: SessionUser

    public init(accessToken: String, refreshToken: String, expiresAt: Date, obtainedAt: Date, user: SessionUser) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.obtainedAt = obtainedAt
        self.user = user
    }

    /// Refresh ahead of expiry: ~120 s before it, or half-way through a token that lives less than
    /// four minutes (so a short-lived token is not refreshed the moment it arrives).
    public var refreshMargin: TimeInterval {
        let lifetime = max(0, expiresAt.timeIntervalSince(obtainedAt))
        return min(120, lifetime / 2)
    }

    public var refreshDueAt: Date { expiresAt.addingTimeInterval(-refreshMargin) }

    public func isRefreshDue(now: Date = Date()) -> Bool { now >= refreshDueAt }

    public func isExpired(now: Date = Date()) -> Bool { now >= expiresAt }

    /// Is the file content usable at all (a hand-edited file may decode yet be empty)?
    public var isUsable: Bool { !accessToken.isEmpty && !refreshToken.isEmpty && !user.id.isEmpty }
}

public struct SessionUser: Codable, Sendable, Equatable {
    public var id: String
    public var email: String
    public var createdAt: Date?
    public var lastSignInAt: Date?
    /// `user_metadata.username` as given at sign-up (the profile has the authoritative one).
    public var metadataUsername: String?

    public init(id: String, email: String, createdAt: Date? = nil, lastSignInAt: Date? = nil, metadataUsername: String? = nil) {
        self.id = id
        self.email = email
        self.createdAt = createdAt
        self.lastSignInAt = lastSignInAt
        self.metadataUsername = metadataUsername
    }
}
