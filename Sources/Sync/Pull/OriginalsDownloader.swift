#if canImport(Glibc)
import Glibc
#endif
import Account
import Foundation
import HTTP
import Library
import Shared
import Store
import Support

/// Brings the originals of the account's local photos imported on another device (liked or edited
/// there, so uploaded to `originals/<user id>/<hash>`) into this machine's library, after each pull.
/// A file is kept only if its SHA-256 is the one its photo's id names; one not uploaded yet (404) is
/// looked for again at the next pull.
struct OriginalsDownloader: Sendable {
    let backend: SupabaseBackend
    let store: Store
    let dataDirectory: String

    func downloadMissing(accountId: String, token: String) async throws(BackendError) -> [PhotoChange] {
        let missing: [String]
        do {
            missing = try store.read { db in try PhotoFileStore.localWithoutFile(db, accountId: accountId, limit: 50) }
        } catch {
            throw .local("cannot read the store: \(error)")
        }
        var changes: [PhotoChange] = []
        for photoId in missing {
            let name = OriginalsPusher.objectName(accountId: accountId, photoId: photoId)
            let body: [UInt8]
            do {
                body = try await backend.send(
                    "GET", "/storage/v1/object/authenticated/\(OriginalsPusher.bucket)/\(name)", bearer: token, timeout: .seconds(300)).body
            } catch {
                // Not uploaded (yet): its device has not sent it, or it was too large to send.
                if let status = error.serverError?.status, status == 404 || status == 400 { continue }
                throw error
            }
            let hash = OriginalsPusher.contentHash(of: photoId)
            guard let ext = ImageFormat.fileExtension(of: body) else {
                throw .malformed(status: 200, detail: "Storage sent something that is not an image for the original of \(photoId)")
            }
            let relative = "library/local/\(ImagePaths.safe(hash)).orig.\(ext)"
            let final = dataDirectory + "/" + relative
            let staged = final + ".pulled-" + UUID().uuidString.prefix(8).lowercased()
            do {
                try FileManager.default.createDirectory(atPath: dataDirectory + "/library/local", withIntermediateDirectories: true)
                try EditStudio.writeAtomically(Data(body), to: staged)
                // The bytes in hand, not the file read back (the downloads' hash is taken the same way).
                let checksum = FileDigest.hex(SHA256.hash(body))
                guard checksum.hasPrefix(hash) else {
                    throw EditingFileError(message: "Storage's file does not hash to the photo's id (\(checksum.prefix(16)))")
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
                if recorded { changes.append(PhotoChange(id: photoId, change: .updated)) } else { unlink(staged) }
            } catch {
                unlink(staged)
                throw .local("cannot keep the original of \(photoId): \(error)")
            }
        }
        return changes
    }
}
