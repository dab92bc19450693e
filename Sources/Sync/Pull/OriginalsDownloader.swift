#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HTTP
import Library
import Shared
import Store
import Supabase
import Support

/// Brings the originals of the account's photos that exist only as a file on another device (imported
/// from a folder, or picked from Google Photos, there; liked or edited, so uploaded to
/// `originals/<user id>/<hash>`) into this machine's library, after each pull. A file is kept only if its
/// SHA-256 is the one its photo names (a local id's hash, a Google photo's row); one not uploaded yet
/// (404) is looked for again at the next pull. A photo whose original is not shared (its row says why)
/// is not looked for: `photos show` says why instead.
struct OriginalsDownloader: Sendable {
    let backend: SupabaseBackend
    let store: Store
    let dataDirectory: String

    func downloadMissing(accountId: String, token: String) async throws(BackendError) -> [PhotoChange] {
        let missing: [PhotoFileStore.MissingOriginal]
        do {
            missing = try store.read { db in try PhotoFileStore.originalsWithoutFile(db, accountId: accountId, limit: 50) }
        } catch {
            throw .local("cannot read the store: \(error)")
        }
        var changes: [PhotoChange] = []
        for original in missing {
            let hash = OriginalsPusher.hash(sha256: original.sha256, photoId: original.photoId)
            let name = OriginalsPusher.objectName(accountId: accountId, hash: hash)
            let body: [UInt8]
            do {
                body = try await backend.send(
                    "GET", "/storage/v1/object/authenticated/\(OriginalsPusher.bucket)/\(name)", bearer: token, timeout: .seconds(300)).body
            } catch {
                // Not uploaded (yet): its device has not sent it.
                if let status = error.serverError?.status, status == 404 || status == 400 { continue }
                throw error
            }
            if let change = try keep(body, of: original, hash: hash) { changes.append(change) }
        }
        return changes
    }

    /// Checks `body` against the hash its photo names and moves it into the library with its row.
    private func keep(_ body: [UInt8], of original: PhotoFileStore.MissingOriginal, hash: String) throws(BackendError) -> PhotoChange? {
        let photoId = original.photoId
        guard let ext = ImageFormat.fileExtension(of: body) else {
            throw .malformed(status: 200, detail: "Storage sent something that is not an image for the original of \(photoId)")
        }
        let remoteId = photoId.split(separator: ":", maxSplits: 1).last.map(String.init) ?? photoId
        let folder = "library/\(ImagePaths.safe(original.source))"
        let relative = "\(folder)/\(ImagePaths.safe(original.sha256 == nil ? hash : remoteId)).orig.\(ext)"
        let final = dataDirectory + "/" + relative
        let staged = final + ".pulled-" + UUID().uuidString.prefix(8).lowercased()
        do {
            try DurableFile.makeDirectories(dataDirectory + "/" + folder)
            try EditStudio.writeAtomically(Data(body), to: staged)
            // The bytes in hand, not the file read back (the downloads' hash is taken the same way).
            let checksum = FileDigest.hex(SHA256.hash(body))
            guard original.sha256.map({ $0 == checksum }) ?? checksum.hasPrefix(hash) else {
                throw EditingFileError(message: "Storage's file does not hash to what the photo names (\(checksum.prefix(16)))")
            }
            let recorded = try store.write { db -> Bool in
                guard try PhotoFileStore.files(db, photoId: photoId).isEmpty else { return false }
                guard rename(staged, final) == 0 else {
                    throw EditingFileError(message: "cannot move the original into the library: \(String(cString: strerror(errno)))")
                }
                let now = Date()
                try PhotoFileStore.record(db, PhotoFileStore.File(
                    photoId: photoId, variant: "orig", path: relative, inLibrary: true, bytes: Int64(body.count),
                    checksum: checksum, createdAt: now, lastAccessAt: now))
                return true
            }
            if !recorded { unlink(staged) }
            return recorded ? PhotoChange(id: photoId, change: .updated) : nil
        } catch {
            unlink(staged)
            throw .local("cannot keep the original of \(photoId): \(error)")
        }
    }
}
