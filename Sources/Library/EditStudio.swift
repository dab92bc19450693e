#if canImport(Glibc)
import Glibc
#endif
import Editing
import Foundation
import GRDB
import Shared
import Store
import Support

/// Edits from start to finish: find the original on this machine (or have it fetched), render with
/// libvips, put the rendering beside the original atomically, and record it with its outbox op.
/// Works offline once the original is here; the upload waits in the outbox for the network.
public struct EditStudio: Sendable {
    public let store: Store
    public let editor: ImageEditor
    public let dataDirectory: String
    public let cacheDirectory: String
    /// Brings a photo's original into the library (the image queue does it, when online). Throws a
    /// protocol error saying why it cannot (offline, the catalogue has no URL).
    let fetchOriginal: @Sendable (String) async throws -> Void
    /// Told of each edit saved (its photo changed, its upload queued) and each removal queued.
    let announce: Announcements

    public init(
        store: Store, editor: ImageEditor, dataDirectory: String, cacheDirectory: String, announce: Announcements = .silent,
        fetchOriginal: @escaping @Sendable (String) async throws -> Void
    ) {
        self.announce = announce
        self.store = store
        self.editor = editor
        self.dataDirectory = dataDirectory
        self.cacheDirectory = cacheDirectory
        self.fetchOriginal = fetchOriginal
    }

    /// A small rendering to look at; nothing is saved.
    public func preview(photoId: String, steps: [FilterStep], size: Int) async throws -> RenderedImage {
        try await withOriginal(photoId) { original in
            try await editor.preview(source: original, steps: steps, size: size)
        }
    }

    /// A preview and the original it was made from (drawn side by side in a terminal).
    public func previewBeside(photoId: String, steps: [FilterStep], size: Int) async throws -> (preview: RenderedImage, original: URL) {
        try await withOriginal(photoId) { original in
            (try await editor.preview(source: original, steps: steps, size: size), original)
        }
    }

    /// Renders and saves a new edit. On any failure nothing is left: no file, no row, no op.
    public func create(photoId: String, steps: [FilterStep], accountId: String) async throws -> EditRecord {
        let photo = try store.read { db in try PhotoRecord.fetchOne(db, key: photoId) }
        guard let photo else { throw LibraryError.unknownPhoto(photoId) }
        let editId = UUID().uuidString.lowercased()
        let relative = ImagePaths.edit(source: photo.source.rawValue, remoteId: photo.remoteId, editId: editId)
        let final = dataDirectory + "/" + relative
        // Rendered into a staged file, made durable, then renamed into place inside the transaction that
        // records it: a rendering under its final name always has its row, except after a crash between
        // the rename and the commit, which the image queue's start-up sweep finds (a placed edit file
        // older than the process, no row).
        let (staged, bytes) = try await render(photoId, steps: steps, stagedFor: final)
        CrashPoint.editStaged.reach()
        let edit: EditRecord
        do {
            let checksum = try FileDigest.sha256Hex(path: staged)
            edit = try EditActions(store: store).record(
                editId: editId, photoId: photoId, accountId: accountId, pipeline: steps, path: relative,
                bytes: bytes, checksum: checksum
            ) {
                guard rename(staged, final) == 0 else {
                    throw Self.writeError(errno, DaemonText.cannotMoveEditIntoLibrary, directory: (final as NSString).deletingLastPathComponent)
                }
            }
        } catch {
            unlink(staged)
            unlink(final)
            throw error
        }
        DurableFile.syncDirectory(of: final)
        CrashPoint.editRecorded.reach()
        announce.changed(photoId, .edited)
        if accountId != GuestRows.accountId { announce.outboxQueued() }
        return edit
    }

    /// Tombstones an edit and removes its rendering from this machine.
    public func remove(editId: String, accountId: String) throws -> EditActions.Removal {
        let removal = try EditActions(store: store).remove(editId: editId, accountId: accountId)
        if case .removed(_, _, let uploadInFlight) = removal, uploadInFlight { CrashPoint.editRemovedInFlight.reach() }
        if case .removed(_, let path?, _) = removal { unlink(dataDirectory + "/" + path) }
        if case .removed(queued: true, _, _) = removal { announce.outboxQueued() }
        return removal
    }

    /// Runs `body` on the original. The image queue may move a file between the library and the cache
    /// at any moment (a like or an edit pins it, an unlike unpins it); a file gone between finding it
    /// and opening it is looked for again.
    func withOriginal<T>(_ photoId: String, _ body: (URL) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            let path = try await originalPath(photoId)
            do {
                return try await body(URL(fileURLWithPath: path))
            } catch let error as EditingError where attempt < 5 && access(path, F_OK) != 0 {
                // Gone under libvips' feet (it reopens the file to decode): look again.
                attempt += 1
                _ = error
            }
        }
    }

    /// The best local file of a photo's original: a library file first, then the largest cached one.
    /// Fetched first when there is none.
    func originalPath(_ photoId: String) async throws -> String {
        if let path = try localOriginal(photoId) { return path }
        guard try store.read({ db in try PhotoRecord.fetchOne(db, key: photoId) }) != nil else {
            throw LibraryError.unknownPhoto(photoId)
        }
        try await fetchOriginal(photoId)
        guard let path = try localOriginal(photoId) else {
            throw EditingError.io(.originalNotBrought(id: photoId))
        }
        return path
    }

    /// The local original, the library's before the cache's and the larger first. A move between the
    /// library and the cache may be under way: the image queue renames the file first and points its
    /// row after, so a row's file that is not where the row says is looked for where the move puts it
    /// (a rename: the file is at one place or the other at every instant).
    func localOriginal(_ photoId: String) throws -> String? {
        let files = try store.read { db in try PhotoFileStore.files(db, photoId: photoId) }
            .filter { !$0.variant.hasPrefix("edit:") }
            .sorted { ($0.inLibrary ? 1 : 0, $0.bytes) > ($1.inLibrary ? 1 : 0, $1.bytes) }
        for file in files {
            if file.path.hasPrefix("/") {
                if access(file.path, R_OK) == 0 { return file.path }
                continue
            }
            let (here, there) = file.inLibrary ? (dataDirectory, cacheDirectory) : (cacheDirectory, dataDirectory)
            for path in [here + "/" + file.path, there + "/" + file.movedPath] where access(path, R_OK) == 0 {
                return path
            }
        }
        return nil
    }

    /// A full disk or quota is its own error: the person can act on it, and nothing is a bug.
    /// `failed` says what could not be done, given the system's reason.
    static func writeError(_ code: Int32, _ failed: (_ reason: String) -> DaemonText, directory: String) -> EditingError {
        let reason = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT {
            return .noSpace(.diskFull(why: failed(reason), directory: directory))
        }
        return .io(failed(reason))
    }

    /// `<final>.part`, written and flushed, then renamed: the library never holds half an edit, even
    /// after a crash or a full disk.
    public static func writeAtomically(_ data: Data, to final: String) throws {
        let part = try stage(data, for: final)
        do {
            try DurableFile.rename(part, to: final)
        } catch {
            throw Self.writeError(error.errno, DaemonText.cannotSaveEdit, directory: DurableFile.directory(of: final))
        }
    }

    /// Renders the edit into `<final>.part` and flushes it: its path and size, for the caller to rename
    /// into place. On any failure nothing is left. libvips writes the file, and says a failed write in
    /// its own words: a full file system is then said as a full disk.
    func render(_ photoId: String, steps: [FilterStep], stagedFor final: String) async throws -> (path: String, bytes: Int64) {
        let directory = try Self.makeFolder(for: final)
        let part = final + ".part"
        let fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.writeError(errno, DaemonText.cannotSaveEdit, directory: directory) }
        defer { close(fd) }
        do {
            try await withOriginal(photoId) { original in
                // Again from the start when the original moved and is looked for again.
                guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else {
                    throw Self.writeError(errno, DaemonText.cannotSaveEdit, directory: directory)
                }
                return try await editor.render(source: original, steps: steps, into: fd)
            }
            guard fsync(fd) == 0 else { throw Self.writeError(errno, DaemonText.cannotSaveEdit, directory: directory) }
        } catch {
            var space = statvfs()
            let full = fstatvfs(fd, &space) == 0 && space.f_bavail == 0
            unlink(part)
            if full, case EditingError.corrupt = error { throw Self.writeError(ENOSPC, DaemonText.cannotSaveEdit, directory: directory) }
            throw error
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let code = errno
            unlink(part)
            throw Self.writeError(code, DaemonText.cannotSaveEdit, directory: directory)
        }
        return (part, Int64(status.st_size))
    }

    /// Writes and flushes `<final>.part` and returns its path; the caller renames it into place.
    static func stage(_ data: Data, for final: String) throws -> String {
        let directory = try makeFolder(for: final)
        let part = final + ".part"
        do {
            try DurableFile.write(data, to: part)
        } catch {
            throw Self.writeError(error.errno, DaemonText.cannotSaveEdit, directory: directory)
        }
        return part
    }

    /// Makes the folder `final` goes in, and its parents: the folder, or why it cannot be made.
    static func makeFolder(for final: String) throws -> String {
        let directory = DurableFile.directory(of: final)
        do throws(FileError) {
            try DurableFile.makeDirectories(directory)
        } catch {
            throw EditingError.io(.cannotCreateFolder(path: directory, reason: "\(error)"))
        }
        return directory
    }
}
