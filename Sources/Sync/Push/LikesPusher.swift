import Account
import Foundation
import GRDB
import Library
import Store

/// Sends a batch of like ops as two bulk upserts: the photos' metadata (so other devices can show
/// them) and the likes themselves, keyed by (user_id, photo_id). Unlikes are tombstones
/// (`deleted_at`), so every op is idempotent and a resend is harmless.
///
/// The rows are built by the store from the queued payloads (`LikePushRows`), in the transaction that
/// takes the batch; a request body is those rows joined, not decoded and encoded again.
struct LikesPusher: OutboxPusher {
    let backend: SupabaseBackend
    let entity = LikeActions.entity
    let batchSize: Int
    let noun = "likes"

    func read(_ batch: [OutboxEntry], db: Database) throws -> [OutboxReading<LikePushRows.Rows>] {
        let readings = try LikePushRows.fetch(db, seqs: batch.compactMap(\.seq))
        return batch.map { op in
            switch op.seq.flatMap({ readings[$0] }) {
            case .rows(let rows): .ready(rows)
            case .unreadable(let problem): .unreadable(problem)
            // Not in the outbox, though taken from it in this transaction: nothing is left to send.
            case nil: .unsendable("the queued change is no longer in the outbox")
            }
        }
    }

    func push(_ batch: [LikePushRows.Rows], token: String, accountId: String) async throws(BackendError) {
        // Metadata first: a photo the server refuses (a check constraint) must refuse its like too,
        // or a rejected op would have half reached the server. Unlikes carry it too: an unlike may be
        // the first the server hears of a photo (a like and its unlike made before either was sent),
        // and a device that pulls the tombstone and later a like again needs the photo's URLs.
        let photos = batch.compactMap(\.photo)
        if !photos.isEmpty {
            _ = try await backend.send("POST", "/rest/v1/photos", query: Self.conflict, body: Self.array(photos), bearer: token, headers: Self.upsert)
        }
        _ = try await backend.send("POST", "/rest/v1/likes", query: Self.conflict, body: Self.array(batch.map(\.like)), bearer: token, headers: Self.upsert)
    }

    /// JSON objects, each already a whole JSON text, as one JSON array.
    static func array(_ objects: [String]) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(objects.reduce(2) { $0 + $1.utf8.count + 1 })
        body.append(UInt8(ascii: "["))
        for (index, object) in objects.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: object.utf8)
        }
        body.append(UInt8(ascii: "]"))
        return body
    }

    static let upsert = [("Prefer", "resolution=merge-duplicates,return=minimal")]
    static let conflict = [("on_conflict", "user_id,photo_id")]

    /// A photo's metadata from an op that is not a like (an edit's), so that other devices can show it.
    /// The same row as `LikePushRows` builds for a like's photo.
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
            body = Array(try JSONEncoder().encode(rows))
        } catch {
            throw .local("cannot encode the photos: \(error)")
        }
        _ = try await backend.send("POST", "/rest/v1/photos", query: Self.conflict, body: body, bearer: token, headers: Self.upsert)
    }
}

extension LikesPusher {
    /// Each photo's URLs (kept as a JSON object) read as one array: one parse, not a decoder's per photo;
    /// one by one only when some do not read, and those as none.
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
