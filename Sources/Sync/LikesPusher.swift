import Account
import Foundation
import Library
import Store

/// Sends a batch of like ops as two bulk upserts: the photos' metadata (so other devices can show
/// them) and the likes themselves, keyed by (user_id, photo_id). Unlikes are tombstones
/// (`deleted_at`), so every op is idempotent and a resend is harmless.
struct LikesPusher: Sendable {
    let backend: SupabaseBackend

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
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try ops.map { try decoder.decode(LikeActions.Payload.self, from: Data($0.payload.utf8)) }
    }

    func push(_ payloads: [LikeActions.Payload], token: String) async throws(BackendError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(SupabaseWire.timestamp(date))
        }
        let photos = payloads.map { payload in
            ServerPhotoRow(
                photo_id: payload.photoId, title: payload.photo?.title, description: payload.photo?.description,
                author_name: payload.photo?.authorName, author_url: payload.photo?.authorUrl, color: payload.photo?.color,
                width: payload.photo?.width, height: payload.photo?.height,
                urls: payload.photo?.urls.flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) } ?? [:])
        }
        let likes = payloads.map { LikeRow(photo_id: $0.photoId, liked_at: $0.likedAt, deleted_at: $0.deletedAt) }
        let upsert = [("Prefer", "resolution=merge-duplicates,return=minimal")]
        let conflict = [("on_conflict", "user_id,photo_id")]
        let photosBody: [UInt8]
        let likesBody: [UInt8]
        do {
            photosBody = Array(try encoder.encode(photos))
            likesBody = Array(try encoder.encode(likes))
        } catch {
            throw .malformed(status: 0, detail: "cannot encode the batch: \(error)")
        }
        _ = try await backend.send("POST", "/rest/v1/photos", query: conflict, body: photosBody, bearer: token, headers: upsert)
        _ = try await backend.send("POST", "/rest/v1/likes", query: conflict, body: likesBody, bearer: token, headers: upsert)
    }
}

/// Timestamps as PostgREST reads them.
enum SupabaseWire {
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
