#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP
import Store
import Support

/// One file of one photo, from its URL to its row: fetched into `<final>.download` (its `.part` beside
/// it, resumed with Range), checked to be a whole JPEG and hashed, then flushed, renamed into place and
/// recorded in `photo_files` with the other files that finished with it (`FileCommitter`). After a
/// crash the pieces are picked up where they lie: a `.part` resumes, a staged or placed file that was
/// complete is verified and recorded as is.
struct ImageDownloader: Sendable {
    let http: HTTPClient
    let dataDirectory: String
    let cacheDirectory: String
    let maxFileBytes: Int64
    /// Flushes, places and records finished files in batches.
    let committer: FileCommitter
    /// The URL of a rendition in a `photos.urls` object (the photo sources know their names).
    let renditionURL: @Sendable (_ urls: String?, _ variant: String) -> String?

    /// Library files live in the data directory; feeds' thumbnails (`inLibrary` false) in the cache,
    /// evictable. `progress(bytes, total)` is called on the HTTP client's thread; `downloaded` once the
    /// bytes are all here, before they are checked, hashed and landed.
    func download(
        _ job: PhotoFileStore.Missing, variant: String, inLibrary: Bool, downloaded: @Sendable () -> Void = {},
        progress: @escaping @Sendable (Int64, Int64?) -> Void
    ) async throws(ImageFailure) -> PhotoFileStore.File {
        guard let url = renditionURL(job.urls, variant) else {
            throw ImageFailure(message: "the photo has no \(variant) URL", transient: false)
        }
        let libraryPath = ImagePaths.library(source: job.source, remoteId: job.remoteId, variant: variant)
        let relative = inLibrary ? libraryPath : ImagePaths.cache(forLibrary: libraryPath)
        let final = (inLibrary ? dataDirectory : cacheDirectory) + "/" + relative
        // The finished body lands in `<final>.download` (its `.part` beside it) and is checked before it
        // takes the library name: the library never holds an HTML error page, even for an instant.
        let staged = final + ".download"
        try LocalFile.makeDirectories(for: final)
        let placed = LocalFile.exists(final)
        // The body's SHA-256, hashed as it arrived; a file left by an earlier run is read for it.
        var arrivedDigest: [UInt8]?
        if !placed && !LocalFile.exists(staged) {
            do {
                // Neither the file nor the directory is flushed here: the committer flushes the file
                // before its rename and the directory after it, a batch at a time (a crash before leaves
                // a complete .part or .download, each picked up at the next start).
                arrivedDigest = try await http.download(
                    HTTPRequest(url: url, followRedirects: true), to: staged, maxBytes: maxFileBytes, syncDirectory: false,
                    flushFile: false, progress: progress).sha256
            } catch {
                // An empty .part (a refused or redirected request) is no progress worth keeping.
                if LocalFile.size(staged + ".part") == 0 { unlink(staged + ".part") }
                guard let failure = ImageFailure(error) else { throw ImageFailure(message: "cancelled", transient: true) }
                throw failure
            }
        }
        downloaded()
        // A placed file was put there by a run that died before recording it; it is kept only if it is
        // what we would have kept.
        let checked = placed ? final : staged
        do throws(ImageFailure) {
            try JPEGCheck.verify(checked)
        } catch {
            unlink(checked)
            throw error
        }
        let checksum: String
        if let arrivedDigest {
            checksum = FileDigest.hex(arrivedDigest)
        } else {
            do {
                checksum = try FileDigest.sha256Hex(path: checked)
            } catch {
                throw ImageFailure(message: "cannot read back \(checked): \(error)", transient: true)
            }
        }
        let now = Date()
        let file = PhotoFileStore.File(
            photoId: job.photoId, variant: variant, path: relative, inLibrary: inLibrary, bytes: LocalFile.size(checked) ?? 0,
            checksum: checksum, createdAt: now, lastAccessAt: now)
        try await committer.land(FileCommitter.Landing(staged: placed ? nil : staged, final: final, file: file))
        return file
    }
}
