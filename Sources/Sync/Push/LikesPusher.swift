import Account
import Foundation
import Library
import Store

/// Sends a batch of like ops as two bulk upserts: the photos' metadata (so other devices can show
/// them) and the likes themselves, keyed by (user_id, photo_id). Unlikes are tombstones
/// (`deleted_at`), so every op is idempotent and a resend is harmless.
struct LikesPusher: OutboxPusher {
    let backend: SupabaseBackend
    let entity = LikeActions.entity
    let batchSize: Int
    let noun = "likes"

    /// The batch read at once; one by one only when some op does not read (to name it).
    func read(_ batch: [OutboxEntry]) -> [OutboxReading<LikeActions.Payload>] {
        if let payloads = try? Self.payloads(batch) { return payloads.map { .ready($0) } }
        return readEach(batch, decode: { try OutboxPayload.decode(LikeActions.Payload.self, from: $0) })
    }

    struct LikeRow: Encodable {
        var photo_id: String
        var liked_at: Date
        var deleted_at: Date?

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(photo_id, forKey: .photo_id)
            try c.encode(liked_at, forKey: .liked_at)
            try c.encode(deleted_at, forKey: .deleted_at)
        }

        enum CodingKeys: String, CodingKey { case photo_id, liked_at, deleted_at }
    }

    static func payloads(_ ops: [OutboxEntry]) throws -> [LikeActions.Payload] {
        try OutboxPayload.decodeAll(LikeActions.Payload.self, from: ops.map(\.payload))
    }

    func push(_ payloads: [LikeActions.Payload], token: String, accountId: String) async throws(BackendError) {
        let likes = payloads.map { LikeRow(photo_id: $0.photoId, liked_at: $0.likedAt, deleted_at: $0.deletedAt) }
        let likesBody: [UInt8]
        do {
            likesBody = Array(try Self.encoder.encode(likes))
        } catch {
            throw .local("cannot encode the batch: \(error)")
        }
        // Metadata first: a photo the server refuses (a check constraint) must refuse its like too,
        // or a rejected op would have half reached the server. Unlikes carry it too: an unlike may be
        // the first the server hears of a photo (a like and its unlike made before either was sent),
        // and a device that pulls the tombstone and later a like again needs the photo's URLs.
        let photos = payloads.filter { $0.photo != nil }.map { ($0.photoId, $0.photo) }
        if !photos.isEmpty { try await upsertPhotos(photos, token: token) }
        _ = try await backend.send("POST", "/rest/v1/likes", query: Self.conflict, body: likesBody, bearer: token, headers: Self.upsert)
    }

    static let upsert = [("Prefer", "resolution=merge-duplicates,return=minimal")]
    static let conflict = [("on_conflict", "user_id,photo_id")]

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(SupabaseWire.timestamp(date))
        }
        return encoder
    }

    /// The photos' metadata, so that other devices can show what this one liked or edited.
    func upsertPhotos(_ photos: [(id: String, metadata: LikeActions.PhotoMetadata?)], token: String) async throws(BackendError) {
        let urls = Self.urls(photos.map { $0.metadata?.urls })
        let rows = zip(photos, urls).map { entry, urls in
            let (id, photo) = entry
            return ServerPhotoRow(
                photo_id: id, title: photo?.title, description: photo?.description,
                author_name: photo?.authorName, author_url: photo?.authorUrl, color: photo?.color,
                width: photo?.width, height: photo?.height, urls: urls)
        }
        let body: [UInt8]
        do {
            body = Array(try Self.encoder.encode(rows))
        } catch {
            throw .local("cannot encode the photos: \(error)")
        }
        _ = try await backend.send("POST", "/rest/v1/photos", query: Self.conflict, body: body, bearer: token, headers: Self.upsert)
    }
}

extension LikesPusher {
    /// Each photo's URLs (kept as a JSON object) read as one array: one parse, not a decoder's per photo
    /// (50 ms of a 10,000-like push); one by one only when some do not read, and those as none.
    static func urls(_ texts: [String?]) -> [[String: String]] {
        let objects = texts.map { $0 ?? "{}" }
        if let all = try? OutboxPayload.decodeAll([String: String].self, from: objects) { return all }
        let decoder = JSONDecoder()
        return objects.map { (try? decoder.decode([String: String].self, from: Data($0.utf8))) ?? [:] }
    }
}

/// Timestamps as PostgREST reads them: `2026-11-25T19:01:26.123Z`, to the nearest millisecond.
enum SupabaseWire {
    /// A value type, formatting in well under a microsecond. An `ISO8601DateFormatter` made per call
    /// cost 113 µs on this machine, once or twice per op of every push batch (issue 19, item 2).
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func timestamp(_ date: Date) -> String {
        // The style drops what lies past the millisecond where the formatter rounded it (half up):
        // round first, then format a hair past the millisecond so that its truncation keeps it.
        let milliseconds = (date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down)
        return Date(timeIntervalSince1970: milliseconds / 1000 + 0.0001).formatted(style)
    }
}
