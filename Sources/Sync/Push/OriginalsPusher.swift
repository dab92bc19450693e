#if canImport(Glibc)
import Glibc
#endif
import Account
import Foundation
import GRDB
import HTTP
import Library
import Shared
import Store

/// Sends the originals of liked or edited local photos to Storage, one file at a time, at
/// `originals/<user id>/<hash>` (the hash of the photo's id, which is its content's: the same file
/// from two devices is one object; x-upsert, so a resend overwrites it with the same bytes).
struct OriginalsPusher: OutboxPusher {
    static let bucket = "originals"
    let backend: SupabaseBackend
    let dataDirectory: String
    /// Larger files are refused before anything is sent (originals.max_mib; the bucket takes 200 MB).
    let maximumBytes: Int64
    let entity = OriginalUploads.entity
    let batchSize = 1
    let noun = "originals"

    /// `<user id>/<hash>`, inside the bucket.
    static func objectName(accountId: String, photoId: String) -> String {
        "\(accountId)/\(contentHash(of: photoId))"
    }

    /// The hash a local photo's id names (`local:<the first 16 hex digits of its SHA-256>`).
    static func contentHash(of photoId: String) -> String {
        photoId.split(separator: ":").last.map(String.init) ?? photoId
    }

    func file(_ payload: OriginalUploads.Payload) -> String {
        payload.path.hasPrefix("/") ? payload.path : dataDirectory + "/" + payload.path
    }

    func read(_ batch: [OutboxEntry], db: Database) -> [OutboxReading<OriginalUploads.Payload>] {
        readEach(batch, decode: { try OriginalUploads.decodePayload($0.payload) }) { payload, op in
            var info = stat()
            guard stat(file(payload), &info) == 0 else {
                return "the original of \(payload.photoId) is no longer at \(file(payload)) (\(String(cString: strerror(errno)))); "
                    + "import it again, then splashctl queue drop \(op.opId.prefix(8))"
            }
            guard Int64(info.st_size) <= maximumBytes else {
                return "too large: the original of \(payload.photoId) is \(Int64(info.st_size) >> 20) MiB, above originals.max_mib "
                    + "(\(maximumBytes >> 20) MiB); it stays on this machine only"
            }
            return nil
        }
    }

    func push(_ batch: [OriginalUploads.Payload], token: String, accountId: String) async throws(BackendError) {
        for payload in batch {
            let bytes: [UInt8]
            do {
                bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file(payload))))
            } catch {
                throw .local("the original cannot be read: \(error.localizedDescription)")
            }
            _ = try await backend.send(
                "POST", "/storage/v1/object/\(Self.bucket)/\(Self.objectName(accountId: accountId, photoId: payload.photoId))",
                body: bytes, bearer: token, headers: [("Content-Type", ImageFormat.mimeType(of: bytes)), ("x-upsert", "true")],
                timeout: .seconds(300))
        }
    }
}
