import Foundation
import GRDB
import Shared
import Store

/// The library as the daemon's handlers see it: queries and changes over the store, in domain terms.
/// It never touches the network (principle 4: a control request answers from the store).
public final class PhotoLibrary: Sendable {
    public let store: Store

    public init(store: Store) {
        self.store = store
    }

    public func list(_ request: PhotosListRequest, accountId: String) throws -> PhotosListResult {
        let query = PhotoQuery(request, accountId: accountId)
        return try store.read { db in try query.fetch(db) }
    }

    public func counts(accountId: String) throws -> (library: LibraryCounts, outbox: OutboxCounts) {
        try store.read { db in
            (try CountsQuery.library(db, accountId: accountId), try CountsQuery.outbox(db, accountId: accountId))
        }
    }

    /// Inserts or refreshes photos by id (a photo is never duplicated); keeps local state such as
    /// `dismissed_at` that the remote side knows nothing about.
    public func upsert(_ photos: [PhotoRecord]) throws {
        try store.write { db in
            for photo in photos {
                if var existing = try PhotoRecord.fetchOne(db, key: photo.id) {
                    let dismissedAt = existing.dismissedAt
                    let phash = existing.phash
                    existing = photo
                    existing.dismissedAt = dismissedAt
                    existing.phash = photo.phash ?? phash
                    try existing.update(db)
                } else {
                    try photo.insert(db)
                }
            }
        }
    }
}
