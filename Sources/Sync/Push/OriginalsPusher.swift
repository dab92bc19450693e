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

/// Sends the originals of liked or edited photos that exist only as a file (imported from a folder,
/// picked from Google Photos) to Storage, one file at a time, at `originals/<user id>/<hash>` (the first
/// 16 hex digits of the file's SHA-256: the same file from two devices is one object; x-upsert, so a
/// resend overwrites it with the same bytes).
///
/// A file above `maximumBytes` is not sent: its photo's row goes instead, saying why (`original_note`),
/// so the account's other devices say so rather than show a row without a picture, and the op is done
/// (never retried, never left refused in the queue for a limit the person set).
struct OriginalsPusher: OutboxPusher {
    static let bucket = "originals"
    let backend: SupabaseBackend
    let dataDirectory: String
    /// Larger files are not sent (originals.max_mib; the bucket takes 200 MB).
    let maximumBytes: Int64
    let entity = OriginalUploads.entity
    let batchSize = 1
    let noun = "originals"

    enum Ready: Sendable {
        case upload(OriginalUploads.Payload)
        /// Too large: the photo's row, with `note`, goes instead.
        case keepHere(OriginalUploads.Payload, note: String, photoRow: String?)
    }

    /// `<user id>/<hash>`, inside the bucket.
    static func objectName(accountId: String, hash: String) -> String {
        "\(accountId)/\(hash.prefix(16))"
    }

    /// The Storage name's hash of a payload: its file's SHA-256, else the one a local photo's id names
    /// (`local:<the first 16 hex digits of its SHA-256>`).
    static func hash(of payload: OriginalUploads.Payload) -> String {
        payload.sha256 ?? payload.photoId.split(separator: ":").last.map(String.init) ?? payload.photoId
    }

    func file(_ payload: OriginalUploads.Payload) -> String {
        payload.path.hasPrefix("/") ? payload.path : dataDirectory + "/" + payload.path
    }

    func read(_ batch: [OutboxEntry], db: Database) throws -> [OutboxReading<Ready>] {
        try batch.map { op in
            let payload: OriginalUploads.Payload
            do {
                payload = try OriginalUploads.decodePayload(op.payload)
            } catch {
                return .unreadable("\(error)")
            }
            var info = stat()
            guard stat(file(payload), &info) == 0 else {
                return .unsendable(
                    "the original of \(payload.photoId) is no longer at \(file(payload)) (\(String(cString: strerror(errno)))); "
                        + "import it again, then splashctl queue drop \(op.opId.prefix(8))")
            }
            guard Int64(info.st_size) <= maximumBytes else {
                let note = "too large to share: \(Int64(info.st_size) >> 20) MiB, above originals.max_mib (\(maximumBytes >> 20) MiB) "
                    + "on the device that has it"
                try OriginalUploads.keepHere(db, photoId: payload.photoId, note: note)
                return .ready(.keepHere(payload, note: note, photoRow: try PhotoPushRow.current(db, photoId: payload.photoId)))
            }
            return .ready(.upload(payload))
        }
    }

    func push(_ batch: [Ready], token: String, accountId: String) async throws(BackendError) {
        for ready in batch {
            switch ready {
            case .keepHere(_, _, let row?):
                try await LikesPusher.upsertPhotos([row], backend: backend, token: token)
            case .keepHere(_, _, nil):
                break
            case .upload(let payload):
                let bytes: [UInt8]
                do {
                    bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file(payload))))
                } catch {
                    throw .local("the original cannot be read: \(error.localizedDescription)")
                }
                _ = try await backend.send(
                    "POST", "/storage/v1/object/\(Self.bucket)/\(Self.objectName(accountId: accountId, hash: Self.hash(of: payload)))",
                    body: bytes, bearer: token, headers: [("Content-Type", ImageFormat.mimeType(of: bytes)), ("x-upsert", "true")],
                    timeout: .seconds(300))
            }
        }
    }

    /// The photo's row the server now holds, with its note: not sent again with the next like.
    func sent(_ batch: [Ready], answer: Void, accountId: String, db: Database) throws -> PushSettled {
        try PhotoPushRow.recordHeld(db, accountId: accountId, rows: batch.compactMap { ready in
            if case .keepHere(_, _, let row) = ready { return row }
            return nil
        })
        return PushSettled(changes: batch.compactMap { ready in
            if case .keepHere(let payload, _, _) = ready { return PhotoChange(id: payload.photoId, change: .updated) }
            return nil
        })
    }
}
