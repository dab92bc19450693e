import Foundation
import GRDB
import HTTP
import Shared
import Store

/// Unsplash beyond search: random picks, topics and a topic's photos. Everything fetched is upserted
/// by id; topic pages are kept ranked like searches so they answer offline.
extension SearchService {
    public func random(_ request: PhotosRandomRequest, accountId: String) async throws(SourceError) -> PhotosRandomResult {
        var query = [("count", String(request.count ?? 1))]  // with count, always an array
        if let topic = request.topic { query.append(("topics", topic)) }
        if let text = request.query { query.append(("query", text)) }
        let response = try await unsplashGet("/photos/random", query: query)
        let photos = try sourceHTTP.decode([UnsplashPhoto].self, response, service: SourceHTTP.unsplash).map { $0.record(fetchedAt: Date()) }
        let summaries = (try? store.write { db -> [PhotoSummary] in
            for photo in photos { try Self.upsert(photo, db: db) }
            return try PhotoQuery.summaries(db, ids: photos.map(\.id), accountId: accountId)
        }) ?? []
        wantThumbnails(of: summaries)
        return PhotosRandomResult(photos: summaries)
    }

    public func topics(_ request: TopicsListRequest) async throws(SourceError) -> TopicsListResult {
        let cacheKey = "unsplash.topics.\(request.order ?? "featured")"
        do {
            let response = try await unsplashGet("/topics", query: [("order_by", request.order ?? "featured"), ("per_page", "30")])
            struct Wire: Decodable {
                var id: String
                var slug: String
                var title: String?
                var description: String?
                var total_photos: Int?
            }
            let topics = try sourceHTTP.decode([Wire].self, response, service: SourceHTTP.unsplash).map {
                Topic(id: $0.id, slug: $0.slug, title: $0.title ?? $0.slug, description: $0.description, totalPhotos: $0.total_photos)
            }
            let now = Date()
            if let data = try? JSONCoding.encoder().encode(topics) {
                _ = try? store.write { db in
                    try CachedValue.save(db, key: cacheKey, value: String(decoding: data, as: UTF8.self), fetchedAt: now)
                }
            }
            return TopicsListResult(topics: topics, stale: false, fetchedAt: now)
        } catch {
            return try answerFromStore(after: error) { reason, retryAt in
                guard let cached = (try? store.read { db in try CachedValue.fetch(db, key: cacheKey) }) ?? nil,
                      let topics = try? JSONCoding.decoder().decode([Topic].self, from: Data(cached.value.utf8))
                else { return nil }
                return TopicsListResult(topics: topics, stale: true, fetchedAt: cached.fetchedAt, staleReason: reason, retryAt: retryAt)
            }
        }
    }

    public func topicPhotos(_ request: TopicPhotosRequest, accountId: String) async throws(SourceError) -> PhotosSearchResult {
        // Kept as a search whose query is the topic, so that it answers offline, and at once when seen before.
        let asSearch = PhotosSearchRequest(
            query: Self.topicPrefix + request.slug, source: .unsplash, order: request.order, page: request.page, perPage: request.perPage)
        let page = request.page ?? 1, perPage = request.perPage ?? 10
        let key = Self.paramsKey(asSearch)
        if request.refresh != true, var kept = keptPage(asSearch, key: key, source: .unsplash, page: page, perPage: perPage, accountId: accountId) {
            kept.query = request.slug
            return kept
        }
        do {
            var query = [("page", String(page)), ("per_page", String(perPage))]
            if let order = request.order { query.append(("order_by", order)) }
            let response = try await unsplashGet("/topics/\(request.slug)/photos", query: query)
            let photos = try sourceHTTP.decode([UnsplashPhoto].self, response, service: SourceHTTP.unsplash).map { $0.record(fetchedAt: Date()) }
            let total = response.headers["X-Total"].flatMap(Int.init) ?? photos.count
            let now = Date()
            let summaries = (try? store.write { db -> [PhotoSummary] in
                for photo in photos { try Self.upsert(photo, db: db) }
                try SearchPages.remember(db, source: .unsplash, query: asSearch.query, key: key, page: page, total: total, ids: photos.map(\.id), now: now)
                return try PhotoQuery.summaries(db, ids: photos.map(\.id), accountId: accountId)
            }) ?? []
            wantThumbnails(of: summaries)
            return PhotosSearchResult(
                source: .unsplash, query: request.slug, page: page, perPage: perPage, total: total,
                totalPages: max(1, (total + perPage - 1) / perPage), photos: summaries, stale: false, fetchedAt: now)
        } catch {
            return try answerFromStore(after: error) { reason, retryAt in
                var kept = cached(key: key, source: .unsplash, request: asSearch, page: page, perPage: perPage, accountId: accountId, reason: reason, retryAt: retryAt)
                kept?.query = request.slug
                return kept
            }
        }
    }
}
