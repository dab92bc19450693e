#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB
import Shared
import Store

/// The library as the daemon's handlers see it: queries and changes over the store, in domain terms.
/// It never touches the network (principle 4: a control request answers from the store).
public final class PhotoLibrary: Sendable {
    public let store: Store
    /// The files a run that did not end cleanly wrote, each hashed before it is first handed out.
    public let audit: FileAudit

    public init(store: Store, audit: FileAudit = .none) {
        self.store = store
        self.audit = audit
    }

    /// A page of the library, already in the wire's JSON (`PhotoQuery.fetch`); `decoded()` reads it back.
    public func list(_ request: PhotosListRequest, accountId: String) throws -> EncodedResult<PhotosListResult> {
        let query = PhotoQuery(request, accountId: accountId)
        return try store.read { db in try query.fetch(db) }
    }

    public func counts(accountId: String) throws -> (library: LibraryCounts, outbox: OutboxCounts) {
        try store.read { db in try CountsQuery.all(db, accountId: accountId) }
    }

    /// Bytes and files in the library and in the cache.
    public func fileUsage() throws -> PhotoFileStore.Usage {
        try store.read { db in try PhotoFileStore.usage(db) }
    }

    /// One photo as `photos.show` shows it: its details, its files where they are on this machine
    /// (paths made absolute against the library's and the cache's directories), and the library
    /// photos it is near by perceptual hash. Nil for a photo the store does not hold.
    public func detail(
        id: String, accountId: String, duplicateThreshold: Int, dataDirectory: String, cacheDirectory: String
    ) throws -> PhotoDetail? {
        let found = try store.read { db -> (detail: PhotoDetail, files: [PhotoFileStore.File], duplicates: [(id: String, distance: Int)])? in
            guard let detail = try PhotoDetailQuery.fetch(db, id: id, accountId: accountId) else { return nil }
            return (
                detail, try PhotoFileStore.files(db, photoId: id),
                try DuplicateFinder.duplicates(of: id, accountId: accountId, threshold: duplicateThreshold, db: db)
            )
        }
        guard let found else { return nil }
        var detail = found.detail
        detail.files = found.files.map { info($0, dataDirectory: dataDirectory, cacheDirectory: cacheDirectory) }
        detail.duplicates = found.duplicates.map { NearDuplicate(id: $0.id, distance: $0.distance) }
        return detail
    }

    /// A photo's files on this machine, as `detail` lists them; nil for a photo the store does not hold.
    public func files(photoId: String, dataDirectory: String, cacheDirectory: String) throws -> [PhotoFileInfo]? {
        let found = try store.readOneStatement { db in try PhotoFileStore.files(db, ofPhoto: photoId) }
        return found?.map { info($0, dataDirectory: dataDirectory, cacheDirectory: cacheDirectory) }
    }

    /// Calls `changed` after every change to which files a photo has (a download, a move between library
    /// and cache, a prune, a photo removed), whoever made it: what was read of `files` may be stale.
    public func followFileChanges(_ changed: @escaping @Sendable () -> Void) {
        store.observePhotoFiles(changed)
    }

    /// Calls `moved` after every move of files between the library and the cache, whoever made it: a
    /// liked photo's file that came back from the cache is in the library from then on.
    public func followFileMoves(_ moved: @escaping @Sendable () -> Void) {
        store.observeFileMoves(moved)
    }

    /// A file's row with its path made absolute and whether it is there now: a file the audit found
    /// damaged is not (it is gone, and fetched again).
    func info(_ file: PhotoFileStore.File, dataDirectory: String, cacheDirectory: String) -> PhotoFileInfo {
        let base = file.inLibrary ? dataDirectory : cacheDirectory
        let path = file.path.hasPrefix("/") ? file.path : base + "/" + file.path
        return PhotoFileInfo(
            variant: file.variant, path: path, bytes: file.bytes, location: file.inLibrary ? .library : .cache,
            present: audit.vouches(for: file) && access(path, F_OK) == 0, checksum: file.checksum, createdAt: file.createdAt,
            lastAccessAt: file.lastAccessAt)
    }

    /// Whether the account likes `photoId` and whether it is dismissed, as a like or dismissal answers.
    public func flags(photoId: String, accountId: String?) throws -> PhotoFlagsQuery.Flags {
        try store.read { db in try PhotoFlagsQuery.fetch(db, photoId: photoId, accountId: accountId ?? "") }
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
