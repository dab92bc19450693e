import Connectivity
import Foundation
import GRDB
import HTTP
import Logging
import Shared
import Store
import Support

/// Live searches of Unsplash and NASA, kept in the store with their rank so that the same search
/// answers offline (marked stale), and remembered as history.
public final class SearchService: Sendable {
    public struct Configuration: Sendable {
        public var unsplashAPIURL: String
        public var unsplashAccessKey: String?
        public var nasaAPIURL: String
        /// A kept page younger than this is what the source would answer: the store answers alone.
        public var freshFor: Duration
        public init(unsplashAPIURL: String, unsplashAccessKey: String?, nasaAPIURL: String, freshFor: Duration = .seconds(60)) {
            self.unsplashAPIURL = unsplashAPIURL
            self.unsplashAccessKey = unsplashAccessKey
            self.nasaAPIURL = nasaAPIURL
            self.freshFor = freshFor
        }
    }

    let store: Store
    let sourceHTTP: SourceHTTP
    let configuration: Configuration
    let logger: Logger
    /// The searches the store answered, to run again in the background (`SearchRefresher`).
    let refreshes = SearchRefreshQueue()
    /// Told the photos of every page answered, so their thumbnails are fetched into the cache in the
    /// background and what was seen online is seen offline (the image queue's lowest priority; CDN
    /// files, which Unsplash's hourly budget does not count).
    let thumbnailsWanted: @Sendable ([String]) -> Void
    /// At most this many thumbnails wished for per answer (a page holds at most 30 for Unsplash).
    static let thumbnailsPerAnswer = 30

    public init(
        store: Store, http: HTTPClient, configuration: Configuration, logger: Logger, health: ServiceHealth? = nil,
        thumbnailsWanted: @escaping @Sendable ([String]) -> Void = { _ in }
    ) {
        self.store = store
        self.sourceHTTP = SourceHTTP(http: http, health: health)
        self.configuration = configuration
        self.logger = logger
        self.thumbnailsWanted = thumbnailsWanted
    }

    /// Wishes for the thumbnails of an answer's photos (not the dismissed ones).
    func wantThumbnails(of photos: [PhotoSummary]) {
        let ids = photos.filter { $0.dismissedAt == nil }.prefix(Self.thumbnailsPerAnswer).map(\.id)
        if !ids.isEmpty { thumbnailsWanted(Array(ids)) }
    }

    /// Unsplash's remaining hourly budget, from `X-Ratelimit-Remaining` (nil: not seen yet).
    public var unsplashBudgetRemaining: Int? { sourceHTTP.unsplashRemaining }

    /// A search run before answers at once from the store (stale) and is run again in the background,
    /// whose fresh page a `search.refreshed` event announces; unless its page is under a minute old, or
    /// the source is over its hourly budget (then the answer says so and when it has room again). A
    /// search never run, or one asked with `refresh`, waits for the source: fresh results or its error.
    public func search(_ request: PhotosSearchRequest, accountId: String) async throws(SourceError) -> PhotosSearchResult {
        let source = request.source ?? .unsplash
        let page = request.page ?? 1
        let perPage = request.perPage ?? 10
        let key = Self.paramsKey(request)
        if request.refresh != true, let kept = keptPage(request, key: key, source: source, page: page, perPage: perPage, accountId: accountId) {
            return kept
        }
        let fetched = try await fetch(request, source: source, page: page, perPage: perPage)
        let now = Date()
        let ids = try? store.write { db -> [String] in
            for photo in fetched.photos { try Self.upsert(photo, db: db) }
            try SearchPages.remember(db, source: source, query: request.query, key: key, page: page, total: fetched.total, ids: fetched.photos.map(\.id), now: now)
            return fetched.photos.map(\.id)
        }
        let photos = (try? store.read { db in try PhotoQuery.summaries(db, ids: ids ?? [], accountId: accountId) }) ?? []
        wantThumbnails(of: photos)
        return PhotosSearchResult(
            source: source, query: request.query, page: page, perPage: perPage, total: fetched.total,
            totalPages: fetched.totalPages, photos: photos, stale: false, fetchedAt: now)
    }

    /// The page the store keeps for this search, answered at once: stale, with the source's last
    /// failure, and queued to run again in the background when older than `freshFor` (over the budget
    /// — a failure with a retry time — nothing is asked of the source until it has room). Nil when the
    /// store keeps no such page.
    func keptPage(
        _ request: PhotosSearchRequest, key: String, source: PhotoSource, page: Int, perPage: Int, accountId: String
    ) -> PhotosSearchResult? {
        guard var kept = cached(key: key, source: source, request: request, page: page, perPage: perPage, accountId: accountId, reason: nil, retryAt: nil)
        else { return nil }
        _ = try? store.write { db in try SearchPages.markAsked(db, source: source, key: key, now: Date()) }
        let failure = sourceHTTP.lastFailure(of: source == .nasa ? SourceHTTP.nasa : SourceHTTP.unsplash)
        kept.staleReason = failure?.description
        kept.retryAt = failure?.retryAt
        if kept.retryAt == nil, Date().timeIntervalSince(kept.fetchedAt) >= configuration.freshFor.timeInterval {
            kept.refreshing = refreshes.enqueue(request, accountId: accountId)
        }
        wantThumbnails(of: kept.photos)
        return kept
    }

    /// A page the store answered, fetched again (`SearchRefresher`): a topic's pages are kept as the
    /// search "topic:<slug>" and fetched from the topic.
    func refetch(_ request: PhotosSearchRequest, accountId: String) async throws(SourceError) -> PhotosSearchResult {
        guard let slug = Self.topicSlug(of: request) else {
            var fresh = request
            fresh.refresh = true
            return try await search(fresh, accountId: accountId)
        }
        return try await topicPhotos(
            TopicPhotosRequest(slug: slug, order: request.order, page: request.page, perPage: request.perPage, refresh: true), accountId: accountId)
    }

    static let topicPrefix = "topic:"

    /// The topic a kept "search" stands for, if it is one.
    static func topicSlug(of request: PhotosSearchRequest) -> String? {
        request.query.hasPrefix(topicPrefix) ? String(request.query.dropFirst(topicPrefix.count)) : nil
    }

    public func history(source: PhotoSource?) throws -> SearchHistoryResult {
        try store.read { db in
            var entries: [SearchHistoryEntry] = []
            for source in source.map({ [$0] }) ?? [.unsplash, .nasa] {
                for run in try SearchPages.recent(db, source: source, limit: 10) {
                    guard let request = try? JSONCoding.decoder().decode(PhotosSearchRequest.self, from: Data(run.key.utf8)),
                          Self.topicSlug(of: request) == nil  // topic pages are kept like searches, but are not searches
                    else { continue }
                    entries.append(SearchHistoryEntry(number: 0, request: request, total: run.total, lastRunAt: run.lastRunAt))
                }
            }
            entries.sort { $0.lastRunAt > $1.lastRunAt }
            for index in entries.indices { entries[index].number = index + 1 }
            return SearchHistoryResult(searches: entries)
        }
    }

    // MARK: - Fetching

    struct Fetched {
        var photos: [PhotoRecord]
        var total: Int
        var totalPages: Int
    }

    private func fetch(_ request: PhotosSearchRequest, source: PhotoSource, page: Int, perPage: Int) async throws(SourceError) -> Fetched {
        let now = Date()
        switch source {
        case .nasa:
            var query = [("q", request.query), ("media_type", request.media ?? "image"), ("page", String(page)), ("page_size", String(perPage))]
            if let from = request.yearFrom { query.append(("year_start", String(from))) }
            if let to = request.yearTo { query.append(("year_end", String(to))) }
            let response = try await sourceHTTP.get(configuration.nasaAPIURL + "/search", query: query, headers: [], service: SourceHTTP.nasa)
            let search = try sourceHTTP.decode(NASASearch.self, response, service: SourceHTTP.nasa)
            let photos = search.collection.items.compactMap { NASASearch.record($0, fetchedAt: now) }
            let total = search.collection.metadata?.total_hits ?? photos.count
            return Fetched(photos: photos, total: total, totalPages: max(1, (total + perPage - 1) / perPage))
        default:
            var query = [("query", request.query), ("page", String(page)), ("per_page", String(perPage))]
            if let color = request.color { query.append(("color", color)) }
            if let orientation = request.orientation { query.append(("orientation", orientation)) }
            if let order = request.order { query.append(("order_by", order)) }
            let response = try await unsplashGet("/search/photos", query: query)
            let search = try sourceHTTP.decode(UnsplashSearchPage.self, response, service: SourceHTTP.unsplash)
            let total = search.total ?? search.results.count
            return Fetched(photos: search.results.map { $0.record(fetchedAt: now) }, total: total, totalPages: search.total_pages ?? 1)
        }
    }

    func unsplashKey() throws(SourceError) -> String {
        guard let key = configuration.unsplashAccessKey, !key.isEmpty else {
            throw .notConfigured(.unsplashKeyMissing)
        }
        return key
    }

    /// `GET <unsplash api><path>` with the access key: every Unsplash call goes through here.
    func unsplashGet(_ path: String, query: [(String, String)]) async throws(SourceError) -> HTTPResponse {
        let key = try unsplashKey()
        return try await sourceHTTP.get(
            configuration.unsplashAPIURL + path, query: query,
            headers: [("Authorization", "Client-ID \(key)"), ("Accept-Version", "v1")], service: SourceHTTP.unsplash, hourlyBudget: true)
    }

    // MARK: - The store

    /// What the store kept, when the source failed: a failure of any kind (unreachable, over its budget,
    /// failing, answering nonsense, refusing the key) leaves the person the results they saw before,
    /// marked stale with the reason.
    func answerFromStore<Answer>(
        after error: SourceError, _ kept: (_ reason: String, _ retryAt: Date?) -> Answer?
    ) throws(SourceError) -> Answer {
        guard let answer = kept(error.description, error.retryAt) else { throw error }
        logger.notice("answering from the store: \(error)", metadata: ["splashd_op": "search"])
        return answer
    }

    /// Every parameter but the page and whether to refresh, canonical: the same search always has the
    /// same key.
    static func paramsKey(_ request: PhotosSearchRequest) -> String {
        var canonical = request
        canonical.page = nil
        canonical.refresh = nil
        canonical.query = request.query.trimmingCharacters(in: .whitespacesAndNewlines)
        canonical.source = request.source ?? .unsplash
        canonical.perPage = request.perPage ?? 10
        let data = (try? JSONCoding.encoder().encode(canonical)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Inserts or refreshes by id, keeping what only this machine knows (dismissal, perceptual hash).
    static func upsert(_ photo: PhotoRecord, db: Database) throws {
        if let existing = try PhotoRecord.fetchOne(db, key: photo.id) {
            var updated = photo
            updated.dismissedAt = existing.dismissedAt
            updated.phash = existing.phash
            if updated.tags.isEmpty { updated.tags = existing.tags }
            try updated.update(db)
        } else {
            try photo.insert(db)
        }
    }

    func cached(
        key: String, source: PhotoSource, request: PhotosSearchRequest, page: Int, perPage: Int, accountId: String,
        reason: String?, retryAt: Date?
    ) -> PhotosSearchResult? {
        try? store.read { db -> PhotosSearchResult? in
            guard let kept = try SearchPages.page(db, source: source, key: key, page: page) else { return nil }
            let total = kept.total ?? kept.ids.count
            return PhotosSearchResult(
                source: source, query: request.query, page: page, perPage: perPage, total: total,
                totalPages: max(1, (total + perPage - 1) / perPage), photos: try PhotoQuery.summaries(db, ids: kept.ids, accountId: accountId),
                stale: true, fetchedAt: kept.lastRunAt, staleReason: reason, retryAt: retryAt)
        } ?? nil
    }
}
