#if canImport(Glibc)
import Glibc
#endif
import Editing
import Foundation
import GRDB
import Shared
import Store
import Support

/// Imports local files as `local:` photos (NicePhotoApp's gallery, on the desktop). Each file is
/// probed from its header (size limit, format), hashed twice — SHA-256 for its identity, so the same
/// bytes are never imported twice, and a perceptual hash to find near-duplicates — and recorded in
/// its own transaction, so an import stopped half-way keeps what it did. The file stays where it is;
/// the library points at it.
public struct PhotoImporter: Sendable {
    public let store: Store
    public let editor: ImageEditor
    /// Near-duplicates are at most this many bits apart (of 64).
    public let duplicateThreshold: Int
    /// Told of each photo recorded (a folder's, or a Google Photos pick's).
    public let announce: Announcements

    public init(store: Store, editor: ImageEditor, duplicateThreshold: Int, announce: Announcements = .silent) {
        self.announce = announce
        self.store = store
        self.editor = editor
        self.duplicateThreshold = duplicateThreshold
    }

    /// `changedSince`: only the files modified after it (a watched folder's catch-up after a restart).
    public func importPath(
        _ root: String, recursive: Bool, accountId: String, changedSince: Date? = nil, progress: @Sendable (ImportProgress) -> Void
    ) async throws -> ImportResult {
        var listing = DirectoryWalker.list(root, recursive: recursive)
        if let changedSince { listing.images = listing.images.filter { Self.modified($0).map { $0 > changedSince } ?? true } }
        if listing.images.isEmpty, let problem = listing.problems.first, problem.path == root {
            throw LibraryError.unreadable(root, problem.error)
        }
        var result = ImportResult(imported: [], duplicates: [], alreadyImported: 0, ignored: listing.ignored, failed: listing.problems)
        var known = try store.read { db in try DuplicateFinder.libraryHashes(db, accountId: accountId) }
        for (index, path) in listing.images.enumerated() {
            if Task.isCancelled { break }
            progress(ImportProgress(
                root: root, total: listing.images.count, done: index, imported: result.imported.count,
                duplicates: result.duplicates.count, failed: result.failed.count, current: path))
            do {
                switch try await importFile(path, known: known) {
                case .imported(let photo, let hash):
                    result.imported.append(photo)
                    known.append((photo.id, hash))
                case .duplicate(let duplicate):
                    result.duplicates.append(duplicate)
                case .alreadyThere:
                    result.alreadyImported += 1
                }
            } catch let error as EditingError {
                result.failed.append(ImportFailure(path: path, error: error.description))
            } catch {
                result.failed.append(ImportFailure(path: path, error: "\(error)"))
            }
        }
        progress(ImportProgress(
            root: root, total: listing.images.count, done: listing.images.count, imported: result.imported.count,
            duplicates: result.duplicates.count, failed: result.failed.count, current: nil))
        return result
    }

    /// A file's modification time (nil when it cannot be read: then it is looked at).
    static func modified(_ path: String) -> Date? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    public enum Outcome: Sendable {
        case imported(ImportedPhoto, PerceptualHash)
        case duplicate(ImportDuplicate)
        case alreadyThere
    }

    /// Who a file is when it is recorded: a local file by its bytes' checksum, where it lies; a photo
    /// picked from Google Photos by its media item, in the library where it was downloaded.
    public struct Identity: Sendable {
        public var source: PhotoSource
        public var remoteId: String
        public var title: String?
        public var takenAt: Date?
        public var metadata: String?
        /// The path `photo_files` keeps: absolute (a local file), or relative to the data directory.
        public var recordedPath: String

        public init(source: PhotoSource, remoteId: String, title: String?, takenAt: Date?, metadata: String?, recordedPath: String) {
            self.source = source
            self.remoteId = remoteId
            self.title = title
            self.takenAt = takenAt
            self.metadata = metadata
            self.recordedPath = recordedPath
        }

        public var photoId: String { source.rawValue + ":" + remoteId }
    }

    private func importFile(_ path: String, known: [(id: String, hash: PerceptualHash)]) async throws -> Outcome {
        let url = URL(fileURLWithPath: path)
        let checksum: String
        do {
            checksum = try FileDigest.sha256Hex(path: path)
        } catch {
            throw EditingError.io(.cannotRead(path: path, reason: "\(error)"))
        }
        let identity = Identity(
            source: .local, remoteId: String(checksum.prefix(16)), title: url.deletingPathExtension().lastPathComponent, takenAt: nil,
            metadata: nil, recordedPath: path)
        // Imports keep the file where it is: the point is the file read and hashed, its row not written.
        return try await record(path, as: identity, checksum: checksum, known: known, beforeWriting: { CrashPoint.importCopied.reach() })
    }

    /// Records the image at `path` (absolute) as `identity` unless the library holds it already or a
    /// near-duplicate of it (`known`: the library's hashes): its header probed (size limit, format),
    /// its pixels decoded for the perceptual hash (which finds a damaged file), photo and file rows
    /// written in one transaction.
    public func record(
        _ path: String, as identity: Identity, checksum: String? = nil, known: [(id: String, hash: PerceptualHash)],
        beforeWriting: () -> Void = {}
    ) async throws -> Outcome {
        let url = URL(fileURLWithPath: path)
        let info = try await editor.probe(url)
        guard ["jpeg", "png", "webp"].contains(info.format) else {
            throw EditingError.unsupported("\(url.lastPathComponent) is \(info.format), not JPEG, PNG or WebP")
        }
        let id = identity.photoId
        if try store.read({ db in try PhotoRecord.fetchOne(db, key: id) }) != nil { return .alreadyThere }
        let hash = try await editor.perceptualHash(url)
        if let nearest = DuplicateFinder.nearest(to: hash, in: known), nearest.distance <= duplicateThreshold {
            return .duplicate(ImportDuplicate(path: path, duplicateOf: nearest.id, distance: nearest.distance))
        }
        let digest: String
        do {
            digest = try checksum ?? FileDigest.sha256Hex(path: path)
        } catch {
            throw EditingError.io(.cannotRead(path: path, reason: "\(error)"))
        }
        var status = stat()
        let found = stat(path, &status) == 0
        let modified = found ? Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec)) : Date()
        let bytes = found ? Int64(status.st_size) : 0
        let now = Date()
        let metadata = identity.metadata ?? PhotoMetadata(path: path, format: info.format).json
        beforeWriting()
        try store.write { db in
            try PhotoRecord(
                source: identity.source, remoteId: identity.remoteId, title: identity.title,
                width: info.width, height: info.height, metadata: metadata, phash: Int64(bitPattern: hash.value),
                createdAt: info.takenAt ?? identity.takenAt ?? modified, fetchedAt: now
            ).insert(db)
            try PhotoFileStore.record(db, PhotoFileStore.File(
                photoId: id, variant: "orig", path: identity.recordedPath, inLibrary: true, bytes: bytes, checksum: digest,
                createdAt: now, lastAccessAt: now))
        }
        announce.changed(id, .added)
        return .imported(ImportedPhoto(id: id, path: path, width: info.width, height: info.height), hash)
    }
}
