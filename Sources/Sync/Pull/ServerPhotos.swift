import Foundation
import GRDB
import HTTP
import Shared
import Store
import Supabase

/// The metadata of photos a pulled like or edit refers to that this device has never seen, from the
/// server's `photos` table (written there by the device that liked or edited them), asked for by id:
/// the newest likes of a first pull, and the photos a pull's rows named that its pass over the photos'
/// rows (`PhotosPuller`) did not fill.
struct ServerPhotos: Sendable {
    let backend: SupabaseBackend
    let store: Store

    /// Fetches the rows of those of `ids` the store does not hold, or holds only as a bare row (no
    /// URLs: made from a pulled like whose metadata the server did not have then): the answers, checked.
    func fetchUnknown(_ ids: [String], token: String) async throws(BackendError) -> [PulledRows.PhotosAnswer] {
        let unknown: [String]
        do {
            let unique = Set(ids)
            unknown = try store.read { db in unique.subtracting(try PulledRows.photosWithMetadata(db, ids: unique)) }.sorted()
        } catch {
            throw .local("cannot read the store: \(error)")
        }
        // In chunks: a page of 500 ids in one `in.(...)` filter would make a request line longer than
        // servers accept (8 KiB is common).
        var answers: [PulledRows.PhotosAnswer] = []
        for start in stride(from: 0, to: unknown.count, by: Self.idsPerRequest) {
            let chunk = unknown[start..<min(start + Self.idsPerRequest, unknown.count)]
            let list = chunk.map { "\"" + $0.replacingOccurrences(of: "\"", with: "") + "\"" }.joined(separator: ",")
            let response = try await backend.send(
                "GET", "/rest/v1/photos",
                query: [("select", ServerPhotoRow.columns), ("photo_id", "in.(\(list))")],
                bearer: token)
            answers.append(try Self.check(response, store: store))
        }
        return answers
    }

    static let idsPerRequest = 50

    /// The answer to a read of the server's photos, checked by the store (`PulledRows.PhotosAnswer`).
    static func check(_ response: HTTPResponse, store: Store) throws(BackendError) -> PulledRows.PhotosAnswer {
        let text = String(decoding: response.body, as: UTF8.self)
        do {
            return try store.read { db in try PulledRows.PhotosAnswer.check(db, text) }
        } catch let error as PulledRowsError {
            throw .malformed(status: response.status, detail: "the server's photos: \(error)")
        } catch {
            throw .local("cannot read the store: \(error)")
        }
    }

    /// A bare row for a photo the server has no metadata for, so the like or edit still has its photo.
    static func ensureBare(_ photoId: String, db: Database, now: Date) throws -> Bool {
        guard let (source, remoteId) = parts(of: photoId) else { return false }
        try PulledRows.insertBarePhoto(db, source: source, remoteId: remoteId, fetchedAt: now)
        return true
    }

    /// Bare rows for the photos of a page of rows (`photoIds`) the store lacks, in one statement for the
    /// page (`PulledRows.insertBarePhotos`). Ids this splashd cannot hold (`parts(of:)`) are passed over.
    static func ensureBare(_ photoIds: [String], db: Database, now: Date) throws {
        try PulledRows.insertBarePhotos(db, photoIds.compactMap(parts(of:)), fetchedAt: now)
    }

    /// A photo id's source and the id within it; nil for a source this splashd does not know (a newer
    /// device's), which has no place in the store.
    static func parts(of photoId: String) -> (source: PhotoSource, remoteId: String)? {
        let parts = photoId.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let source = PhotoSource(rawValue: parts[0]) else { return nil }
        return (source, parts[1])
    }
}
