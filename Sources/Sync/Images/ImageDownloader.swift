#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP
import Store
import Support

/// One file of one photo, from its URL to its row: fetched into `<final>.download` (its `.part` beside
/// it, resumed with Range), checked to be a whole JPEG, renamed into place, flushed, and recorded in
/// `photo_files`. After a crash the pieces are picked up where they lie: a `.part` resumes, a staged or
/// placed file that was complete is verified and recorded as is.
struct ImageDownloader: Sendable {
    let store: Store
    let http: HTTPClient
    let dataDirectory: String
    let cacheDirectory: String
    let maxFileBytes: Int64
    /// The URL of a rendition in a `photos.urls` object (the photo sources know their names).
    let renditionURL: @Sendable (_ urls: String?, _ variant: String) -> String?

    /// Library files live in the data directory; feeds' thumbnails (`inLibrary` false) in the cache,
    /// evictable. `progress(bytes, total)` is called on the HTTP client's thread.
    func download(
        _ job: PhotoFileStore.Missing, variant: String, inLibrary: Bool,
        progress: @escaping @Sendable (Int64, Int64?) -> Void
    ) async throws(ImageFailure) -> PhotoFileStore.File {
        guard let url = renditionURL(job.urls, variant) else {
            throw ImageFailure(message: "the photo has no \(variant) URL", transient: false)
        }
        let libraryPath = ImagePaths.library(source: job.source, remoteId: job.remoteId, variant: variant)
        let relative = inLibrary ? libraryPath : ImageMover.cachePath(forLibrary: libraryPath)
        let final = (inLibrary ? dataDirectory : cacheDirectory) + "/" + relative
        // The finished body lands in `<final>.download` (its `.part` beside it) and is checked before it
        // takes the library name: the library never holds an HTML error page, even for an instant.
        let staged = final + ".download"
        try LocalFile.makeDirectories(for: final)
        if !LocalFile.exists(final) {
            if !LocalFile.exists(staged) {
                do {
                    // Not flushed here: the rename below, in the same directory, is (a crash before it
                    // leaves a complete .part or .download, each picked up at the next start).
                    _ = try await http.download(
                        HTTPRequest(url: url, followRedirects: true), to: staged, maxBytes: maxFileBytes, syncDirectory: false,
                        progress: progress)
                } catch {
                    // An empty .part (a refused or redirected request) is no progress worth keeping.
                    if LocalFile.size(staged + ".part") == 0 { unlink(staged + ".part") }
                    guard let failure = ImageFailure(error) else { throw ImageFailure(message: "cancelled", transient: true) }
                    throw failure
                }
            }
            do throws(ImageFailure) {
                try JPEGCheck.verify(staged)
            } catch {
                unlink(staged)
                throw error
            }
            guard rename(staged, final) == 0 else {
                throw ImageFailure(message: "cannot move the file into the library: \(String(cString: strerror(errno)))", transient: true)
            }
            // The rename into the library must survive a power cut before the row that points at it does.
            DurableFile.syncDirectory(of: final)
            // Aimed at the library's downloads: thumbnails of what searches showed arrive in the
            // background too, and a kill meant for a liked photo's file must not land on one of them.
            if inLibrary { CrashPoint.downloadRenamed.reach() }
        } else {
            // Placed by a run that died before recording it; keep it only if it is what we would have kept.
            do throws(ImageFailure) {
                try JPEGCheck.verify(final)
            } catch {
                unlink(final)
                throw error
            }
        }
        let checksum: String
        do {
            checksum = try FileDigest.sha256Hex(path: final)
        } catch {
            throw ImageFailure(message: "cannot read back \(final): \(error)", transient: true)
        }
        let now = Date()
        let file = PhotoFileStore.File(
            photoId: job.photoId, variant: variant, path: relative, inLibrary: inLibrary, bytes: LocalFile.size(final) ?? 0,
            checksum: checksum, createdAt: now, lastAccessAt: now)
        do {
            try store.write { db in try PhotoFileStore.record(db, file) }
        } catch {
            throw ImageFailure(message: "cannot record the file: \(error)", transient: true)
        }
        return file
    }
}
