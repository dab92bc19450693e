/// `users.changed`: someone signed up (or an account went): the count and the newest sign-ups, as
/// `users count` and `users recent` now answer them.
public struct UsersChange: Codable, Sendable, Equatable {
    public var count: Int
    public var recent: [RecentUser]

    public init(count: Int, recent: [RecentUser]) {
        self.count = count
        self.recent = recent
    }
}
