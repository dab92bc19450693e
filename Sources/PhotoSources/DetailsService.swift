import Foundation
import GRDB
import Shared
import Store

extension SearchService {
    /// `completeDetails`, waited for at most `limit`: a show answers from the store after that, and
    /// a failure only means the details stay as they were.
    public func completeDetails(photoId: String, within limit: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = try? await self.completeDetails(photoId: photoId) }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Completes a photo's metadata once: Unsplash's details call (exif, location, tags, downloads)
    /// or NASA's asset manifest (every rendition). Returns false when there was nothing to do (already
    /// complete, or a local photo). Upserted like any search result, so local state is kept.
    public func completeDetails(photoId: String) async throws(SourceError) -> Bool {
        let photo: PhotoRecord?
        do {
            photo = try store.read { db in try PhotoRecord.fetchOne(db, key: photoId) }
        } catch {
            return false
        }
        guard let photo, !Self.hasDetails(photo) else { return false }
        guard sourceHTTP.usable(photo.source == .nasa ? SourceHTTP.nasa : SourceHTTP.unsplash) else { return false }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_")
        let escaped = photo.remoteId.addingPercentEncoding(withAllowedCharacters: allowed) ?? photo.remoteId
        var updated: PhotoRecord
        switch photo.source {
        case .unsplash:
            let response = try await unsplashGet("/photos/\(escaped)", query: [])
            updated = try sourceHTTP.decode(UnsplashPhoto.self, response, service: SourceHTTP.unsplash).record(fetchedAt: Date(), details: true)
        case .nasa:
            let response = try await sourceHTTP.get(configuration.nasaAPIURL + "/asset/\(escaped)", query: [], headers: [], service: SourceHTTP.nasa)
            let asset = try sourceHTTP.decode(NASASearch.Asset.self, response, service: SourceHTTP.nasa)
            updated = photo
            var urls = (photo.urls.flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }) ?? [:]
            urls.merge(asset.renditions) { _, new in new }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            updated.urls = (try? encoder.encode(urls)).map { String(decoding: $0, as: UTF8.self) }
            var metadata = PhotoMetadata.decode(photo.metadata) ?? PhotoMetadata()
            metadata.details = true
            metadata.renditionBytes = await renditionBytes(asset.renditions.filter { $0.key != "metadata" })
            updated.metadata = metadata.json
        default:
            return false
        }
        let fetched = updated
        do {
            try store.write { db in
                var updated = fetched
                guard var current = try PhotoRecord.fetchOne(db, key: photoId) else { return }
                let keep = (current.dismissedAt, current.phash, current.colorBucket)
                if updated.tags.isEmpty { updated.tags = current.tags }
                current = updated
                (current.dismissedAt, current.phash) = (keep.0, keep.1)
                current.colorBucket = current.colorBucket ?? keep.2
                try current.update(db)
            }
        } catch {
            return false
        }
        return true
    }

    /// Each rendition's size, asked of its host with HEAD, all at once (NASA lists five).
    func renditionBytes(_ urls: [String: String]) async -> [String: Int64]? {
        let sizes = await withTaskGroup(of: (String, Int64?).self) { group in
            for (variant, url) in urls { group.addTask { (variant, await self.sourceHTTP.contentLength(url)) } }
            var sizes: [String: Int64] = [:]
            for await (variant, bytes) in group { if let bytes { sizes[variant] = bytes } }
            return sizes
        }
        return sizes.isEmpty ? nil : sizes
    }

    static func hasDetails(_ photo: PhotoRecord) -> Bool {
        PhotoMetadata.decode(photo.metadata)?.details == true
    }
}
