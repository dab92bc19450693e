import Foundation

/// `photos.search`: a live search of Unsplash or NASA. Results are kept in the store with their rank,
/// so the same search offline answers from the store, marked stale.
public struct PhotosSearchRequest: RPCRequest {
    public typealias Result = PhotosSearchResult
    public static let method = "photos.search"
    public static let summary = "Searches Unsplash or NASA; a search run before answers at once from the store and refreshes in the background."
    public static let parameters = [
        ParameterDoc("query", "string", required: true, "What to look for (1 to 200 characters)."),
        ParameterDoc("source", "string", "unsplash (default) or nasa."),
        ParameterDoc("color", "string", "Unsplash only: a colour bucket, e.g. blue or black_and_white."),
        ParameterDoc("orientation", "string", "Unsplash only: landscape, portrait or squarish."),
        ParameterDoc("order", "string", "Unsplash only: relevant (default) or latest."),
        ParameterDoc("media", "string", "NASA only: image (default), video or audio."),
        ParameterDoc("year_from", "integer", "NASA only: earliest year."),
        ParameterDoc("year_to", "integer", "NASA only: latest year."),
        ParameterDoc("page", "integer", "1 or more (default 1)."),
        ParameterDoc("per_page", "integer", "1 to 30 for Unsplash, 1 to 100 for NASA (default 10)."),
        ParameterDoc("refresh", "boolean", "Wait for fresh results, or the source's error; never the store's. Default false: a search run before answers at once from the store, marked stale, and runs again in the background (refreshing: true; the search.refreshed event brings the fresh page) unless its page is under a minute old or the source is over its hourly budget (then stale_reason and retry_at say so)."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .offline, .rateLimited, .notSignedIn]
    public static let example = PhotosSearchRequest(query: "blue lake", color: "blue", perPage: 10)
    public static let resultExample = PhotosSearchResult(
        source: .unsplash, query: "blue lake", page: 1, perPage: 10, total: 1, totalPages: 1,
        photos: PhotosListRequest.resultExample.photos, stale: false, fetchedAt: Date(timeIntervalSince1970: 1_795_000_000))

    public var query: String
    public var source: PhotoSource?
    public var color: String?
    public var orientation: String?
    public var order: String?
    public var media: String?
    public var yearFrom: Int?
    public var yearTo: Int?
    public var page: Int?
    public var perPage: Int?
    public var refresh: Bool?

    public init(
        query: String, source: PhotoSource? = nil, color: String? = nil, orientation: String? = nil, order: String? = nil,
        media: String? = nil, yearFrom: Int? = nil, yearTo: Int? = nil, page: Int? = nil, perPage: Int? = nil, refresh: Bool? = nil
    ) {
        self.query = query
        self.source = source
        self.color = color
        self.orientation = orientation
        self.order = order
        self.media = media
        self.yearFrom = yearFrom
        self.yearTo = yearTo
        self.page = page
        self.perPage = perPage
        self.refresh = refresh
    }

    public func validate() throws(RPCError) {
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, query.count <= 200 else { throw .invalidInput(.searchQueryLength(maximum: 200), field: "query") }
        let source = self.source ?? .unsplash
        guard source != .local, source != .google else { throw .invalidInput(.searchLocalSource, field: "source") }
        let maxPerPage = source == .nasa ? 100 : 30
        if let perPage, !(1...maxPerPage).contains(perPage) {
            throw .invalidInput(.perPageOutOfRange(maximum: maxPerPage, source: source.rawValue, given: perPage), field: "per_page")
        }
        if let page, page < 1 || page > 10_000 { throw .invalidInput(.pageBelowOne, field: "page") }
        if let color, ColorBucket(rawValue: color) == nil {
            throw .invalidInput(.unknownColour(color: color, known: ColorBucket.allCases.map(\.rawValue)), field: "color")
        }
        if let orientation, !["landscape", "portrait", "squarish"].contains(orientation) {
            throw .invalidInput(.mustBeOneOf(name: "orientation", choices: ["landscape", "portrait", "squarish"]), field: "orientation")
        }
        if let order, !["relevant", "latest"].contains(order) { throw .invalidInput(.mustBeOneOf(name: "order", choices: ["relevant", "latest"]), field: "order") }
        if let media, !["image", "video", "audio"].contains(media) { throw .invalidInput(.mustBeOneOf(name: "media", choices: ["image", "video", "audio"]), field: "media") }
        if source == .unsplash, media != nil || yearFrom != nil || yearTo != nil {
            throw .invalidInput(.nasaFiltersNeedNasa, field: "source")
        }
        if source == .nasa, color != nil || orientation != nil || order != nil {
            throw .invalidInput(.unsplashFiltersOnly, field: "source")
        }
        if let yearFrom, let yearTo, yearFrom > yearTo { throw .invalidInput(.yearFromAfterYearTo, field: "year_from") }
    }
}

public struct PhotosSearchResult: Codable, Sendable, Equatable {
    public var source: PhotoSource
    public var query: String
    public var page: Int
    public var perPage: Int
    public var total: Int
    public var totalPages: Int
    public var photos: [PhotoSummary]
    /// True when answered from the store because the source failed.
    public var stale: Bool
    /// When these results were fetched from the source.
    public var fetchedAt: Date
    /// Why the store answered: the source's failure, in words.
    public var staleReason: String?
    /// When the source has room again, if it is over an hourly budget.
    public var retryAt: Date?
    /// The store answered at once and the search runs again in the background; a `search.refreshed`
    /// event brings the fresh page (or why there is none).
    public var refreshing: Bool?

    public init(
        source: PhotoSource, query: String, page: Int, perPage: Int, total: Int, totalPages: Int, photos: [PhotoSummary],
        stale: Bool, fetchedAt: Date, staleReason: String? = nil, retryAt: Date? = nil, refreshing: Bool? = nil
    ) {
        self.source = source
        self.query = query
        self.page = page
        self.perPage = perPage
        self.total = total
        self.totalPages = totalPages
        self.photos = photos
        self.stale = stale
        self.fetchedAt = fetchedAt
        self.staleReason = staleReason
        self.retryAt = retryAt
        self.refreshing = refreshing
    }
}

/// The `search.refreshed` event: a search page the store answered, fetched again in the background.
public struct SearchRefreshed: Codable, Sendable, Equatable {
    /// The search as asked (its page included).
    public var request: PhotosSearchRequest
    /// The fresh page, now also in the store; nil when the refresh failed.
    public var result: PhotosSearchResult?
    /// Why the refresh failed.
    public var error: String?

    public init(request: PhotosSearchRequest, result: PhotosSearchResult?, error: String?) {
        self.request = request
        self.result = result
        self.error = error
    }
}

/// `search.history`: the last distinct searches per source, newest first.
public struct SearchHistoryRequest: RPCRequest {
    public typealias Result = SearchHistoryResult
    public static let method = "search.history"
    public static let summary = "The last 10 distinct searches per source, newest first; each can be run again as it was."
    public static let parameters = [ParameterDoc("source", "string", "Only this source.")]
    public static let example = SearchHistoryRequest(source: .nasa)
    public static let resultExample = SearchHistoryResult(searches: [SearchHistoryEntry(
        number: 1, request: PhotosSearchRequest(query: "mars rover", source: .nasa), total: 53,
        lastRunAt: Date(timeIntervalSince1970: 1_795_000_000))])
    public var source: PhotoSource?
    public init(source: PhotoSource? = nil) { self.source = source }
}

public struct SearchHistoryResult: Codable, Sendable, Equatable {
    public var searches: [SearchHistoryEntry]
    public init(searches: [SearchHistoryEntry]) { self.searches = searches }
}

public struct SearchHistoryEntry: Codable, Sendable, Equatable {
    /// 1 is the newest: `splashctl search --again 1`.
    public var number: Int
    public var request: PhotosSearchRequest
    public var total: Int?
    public var lastRunAt: Date
    public init(number: Int, request: PhotosSearchRequest, total: Int?, lastRunAt: Date) {
        self.number = number
        self.request = request
        self.total = total
        self.lastRunAt = lastRunAt
    }
}
