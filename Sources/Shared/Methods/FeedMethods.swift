import Foundation

/// What a followed feed is: an Unsplash topic, or a search on either source.
public struct FeedKey: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable { case topic, search }
    public var kind: Kind
    public var value: String
    public var source: PhotoSource?

    public init(kind: Kind, value: String, source: PhotoSource? = nil) {
        self.kind = kind
        self.value = value
        self.source = source
    }

    func validate() throws(RPCError) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, value.count <= 200 else { throw .invalidInput(.feedValueLength(maximum: 200), field: "value") }
        if kind == .topic, source == .nasa { throw .invalidInput(.topicsAreUnsplash, field: "source") }
        if source == .local || source == .google { throw .invalidInput(.followUnsplashOrNasa, field: "source") }
    }
}

/// `feeds.follow`: keeps the newest photos of a topic or a search fresh, in the background.
public struct FeedsFollowRequest: RPCRequest {
    public typealias Result = FeedsListResult
    public static let method = "feeds.follow"
    public static let summary = "Follows a topic or a search: its newest photos (default 30) are kept fresh in the background."
    public static let parameters = [
        ParameterDoc("feed", "object", required: true, "{kind: topic|search, value: slug or query, source: unsplash|nasa}."),
        ParameterDoc("keep", "integer", "How many of its newest photos to keep fresh, 1 to 30 (default 30)."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput]
    public static let example = FeedsFollowRequest(feed: FeedKey(kind: .topic, value: "wallpapers"), keep: 30)
    public static let resultExample = FeedsListResult(feeds: [FeedInfo(
        feed: FeedKey(kind: .topic, value: "wallpapers", source: .unsplash), keep: 30, photos: 30,
        refreshedAt: Date(timeIntervalSince1970: 1_795_000_000))])
    public var feed: FeedKey
    public var keep: Int?
    public init(feed: FeedKey, keep: Int? = nil) {
        self.feed = feed
        self.keep = keep
    }
    public func validate() throws(RPCError) {
        try feed.validate()
        if let keep, !(1...30).contains(keep) { throw .invalidInput(.mustBeBetween(name: "keep", minimum: 1, maximum: 30), field: "keep") }
    }
}

/// `feeds.unfollow`.
public struct FeedsUnfollowRequest: RPCRequest {
    public typealias Result = FeedsListResult
    public static let method = "feeds.unfollow"
    public static let summary = "Stops following a feed (its photos stay in the store)."
    public static let parameters = [ParameterDoc("feed", "object", required: true, "The feed, as feeds.list shows it.")]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound]
    public static let example = FeedsUnfollowRequest(feed: FeedKey(kind: .search, value: "mars", source: .nasa))
    public static let resultExample = FeedsListResult(feeds: [])
    public var feed: FeedKey
    public init(feed: FeedKey) { self.feed = feed }
    public func validate() throws(RPCError) { try feed.validate() }
}

/// `feeds.list`.
public struct FeedsListRequest: RPCRequest {
    public typealias Result = FeedsListResult
    public static let method = "feeds.list"
    public static let summary = "The feeds followed, with how many photos each keeps and when it was last refreshed."
    public static let example = FeedsListRequest()
    public static let resultExample = FeedsFollowRequest.resultExample
    public init() {}
}

public struct FeedsListResult: Codable, Sendable, Equatable {
    public var feeds: [FeedInfo]
    public init(feeds: [FeedInfo]) { self.feeds = feeds }
}

public struct FeedInfo: Codable, Sendable, Equatable {
    public var feed: FeedKey
    public var keep: Int
    public var photos: Int
    public var refreshedAt: Date?
    public init(feed: FeedKey, keep: Int, photos: Int, refreshedAt: Date?) {
        self.feed = feed
        self.keep = keep
        self.photos = photos
        self.refreshedAt = refreshedAt
    }
}
