import Foundation

/// `photos.random`: random Unsplash photos, never a dismissed one.
public struct PhotosRandomRequest: RPCRequest {
    public typealias Result = PhotosRandomResult
    public static let method = "photos.random"
    public static let summary = "Random Unsplash photos (never a dismissed one), optionally from a topic or matching a query."
    public static let parameters = [
        ParameterDoc("count", "integer", "1 to 30 (default 1)."),
        ParameterDoc("topic", "string", "A topic's slug or id."),
        ParameterDoc("query", "string", "Only photos matching this."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .offline, .rateLimited]
    public static let example = PhotosRandomRequest(count: 3, topic: "nature")
    public static let resultExample = PhotosRandomResult(photos: PhotosListRequest.resultExample.photos)
    public var count: Int?
    public var topic: String?
    public var query: String?
    public init(count: Int? = nil, topic: String? = nil, query: String? = nil) {
        self.count = count
        self.topic = topic
        self.query = query
    }
    public func validate() throws(RPCError) {
        if let count, !(1...30).contains(count) { throw .invalidInput(.mustBeBetween(name: "count", minimum: 1, maximum: 30), field: "count") }
        if let topic, topic.isEmpty || topic.count > 100 { throw .invalidInput(.topicNotSlugOrId, field: "topic") }
        if let query, query.trimmingCharacters(in: .whitespaces).isEmpty || query.count > 200 {
            throw .invalidInput(.queryLength(maximum: 200), field: "query")
        }
    }
}

public struct PhotosRandomResult: Codable, Sendable, Equatable {
    public var photos: [PhotoSummary]
    public init(photos: [PhotoSummary]) { self.photos = photos }
}

/// `topics.list`: Unsplash's topics. When Unsplash fails, the last list fetched, marked stale.
public struct TopicsListRequest: RPCRequest {
    public typealias Result = TopicsListResult
    public static let method = "topics.list"
    public static let summary = "Unsplash's topics (when Unsplash fails in any way: the last list fetched, marked stale, with the reason)."
    public static let parameters = [ParameterDoc("order", "string", "featured (default), latest, oldest or position.")]
    public static let errors: [ErrorKind] = [.invalidInput, .offline, .rateLimited]
    public static let example = TopicsListRequest(order: "featured")
    public static let resultExample = TopicsListResult(
        topics: [Topic(id: "bo8jQKTaE0Y", slug: "wallpapers", title: "Wallpapers", description: "From epic drone shots to inspiring moments.", totalPhotos: 12_000)],
        stale: false, fetchedAt: Date(timeIntervalSince1970: 1_795_000_000))
    public var order: String?
    public init(order: String? = nil) { self.order = order }
    public func validate() throws(RPCError) {
        if let order, !["featured", "latest", "oldest", "position"].contains(order) {
            throw .invalidInput(.mustBeOneOf(name: "order", choices: ["featured", "latest", "oldest", "position"]), field: "order")
        }
    }
}

public struct Topic: Codable, Sendable, Equatable {
    public var id: String
    public var slug: String
    public var title: String
    public var description: String?
    public var totalPhotos: Int?
    public init(id: String, slug: String, title: String, description: String?, totalPhotos: Int?) {
        self.id = id
        self.slug = slug
        self.title = title
        self.description = description
        self.totalPhotos = totalPhotos
    }
}

public struct TopicsListResult: Codable, Sendable, Equatable {
    public var topics: [Topic]
    public var stale: Bool
    public var fetchedAt: Date
    /// Why the store answered: Unsplash's failure, in words.
    public var staleReason: String?
    /// When Unsplash has room again, if it is over its hourly budget.
    public var retryAt: Date?
    public init(topics: [Topic], stale: Bool, fetchedAt: Date, staleReason: String? = nil, retryAt: Date? = nil) {
        self.topics = topics
        self.stale = stale
        self.fetchedAt = fetchedAt
        self.staleReason = staleReason
        self.retryAt = retryAt
    }
}

/// `topics.photos`: one topic's photos, kept ranked like a search (offline: from the store, stale).
public struct TopicPhotosRequest: RPCRequest {
    public typealias Result = PhotosSearchResult
    public static let method = "topics.photos"
    public static let summary = """
        A topic's photos, kept like a search: a page seen before answers at once from the store and refreshes in the \
        background (a search.refreshed event, its query "topic:<slug>"); when Unsplash fails they answer from the store, \
        marked stale, with the reason.
        """
    public static let parameters = [
        ParameterDoc("slug", "string", required: true, "The topic's slug or id."),
        ParameterDoc("order", "string", "latest (default), oldest or popular."),
        ParameterDoc("page", "integer", "1 or more."),
        ParameterDoc("per_page", "integer", "1 to 30 (default 10)."),
        ParameterDoc("refresh", "boolean", "Wait for fresh photos, or Unsplash's error; never the store's (as for photos.search)."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .offline, .rateLimited, .notFound]
    public static let example = TopicPhotosRequest(slug: "wallpapers", order: "popular")
    public static let resultExample = PhotosSearchRequest.resultExample
    public var slug: String
    public var order: String?
    public var page: Int?
    public var perPage: Int?
    public var refresh: Bool?
    public init(slug: String, order: String? = nil, page: Int? = nil, perPage: Int? = nil, refresh: Bool? = nil) {
        self.slug = slug
        self.order = order
        self.page = page
        self.perPage = perPage
        self.refresh = refresh
    }
    public func validate() throws(RPCError) {
        guard !slug.isEmpty, slug.count <= 100, slug.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw .invalidInput(.notATopicSlug(slug: String(slug.prefix(40))), field: "slug")
        }
        if let order, !["latest", "oldest", "popular"].contains(order) { throw .invalidInput(.mustBeOneOf(name: "order", choices: ["latest", "oldest", "popular"]), field: "order") }
        if let perPage, !(1...30).contains(perPage) { throw .invalidInput(.mustBeBetween(name: "per_page", minimum: 1, maximum: 30), field: "per_page") }
        if let page, page < 1 { throw .invalidInput(.pageBelowOne, field: "page") }
    }
}
