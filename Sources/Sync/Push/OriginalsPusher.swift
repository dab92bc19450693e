#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB
import HTTP
import Library
import Shared
import Store
import Supabase

/// Sends the originals of liked or edited photos that exist only as a file (imported from a folder,
/// picked from Google Photos) to Storage, one file at a time, at `originals/<user id>/<hash>` (the first
/// 16 hex digits of the file's SHA-256: the same file from two devices is one object; x-upsert, so a
/// resend overwrites it with the same bytes).
///
/// A file above `maximumBytes` is not sent, and one the account's Storage refuses (a size or a type it
/// does not take) is not sent again: its photo's row goes instead, saying why (`original_note`), so this
/// device and the account's other ones say so rather than show a row without a picture, and the op is
/// done (never retried, never left refused in the queue).
struct OriginalsPusher: OutboxPusher {
    static let bucket = "originals"
    let backend: SupabaseBackend
    let dataDirectory: String
    /// Larger files are not sent (originals.max_mib; the bucket takes 200 MB).
    let maximumBytes: Int64
    let entity = OriginalUploads.entity
    let batchSize = 1
    let noun = "originals"
    let isBulk = true

    enum Ready: Sendable {
        /// The file goes; should Storage refuse it, `photoRow` (the photo's row as it is) goes with why.
        case upload(OriginalUploads.Payload, photoRow: String?)
        /// Too large: the photo's row, with `note`, goes instead.
        case keepHere(OriginalUploads.Payload, note: String, photoRow: String?)
    }

    /// What became of each op: the file is in Storage, or it stays here with why.
    enum Sent: Sendable {
        case uploaded
        case keptHere(photoId: String, note: String)
    }

    /// `<user id>/<hash>`, inside the bucket.
    static func objectName(accountId: String, hash: String) -> String {
        "\(accountId)/\(hash.prefix(16))"
    }

    /// The hash that names a photo's original in Storage: its file's SHA-256 when known, else the one a
    /// local photo's id names (`local:<the first 16 hex digits of its SHA-256>`).
    static func hash(sha256: String?, photoId: String) -> String {
        sha256 ?? photoId.split(separator: ":").last.map(String.init) ?? photoId
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
                let note = "too large to share: \(Int64(info.st_size) >> 20) MiB, above originals.max_mib (\(maximumBytes >> 20) MiB)"
                return .ready(.keepHere(payload, note: note, photoRow: try PhotoPushRow.current(db, photoId: payload.photoId)))
            }
            return .ready(.upload(payload, photoRow: try PhotoPushRow.current(db, photoId: payload.photoId)))
        }
    }

    func push(_ batch: [Ready], token: String, accountId: String) async throws(BackendError) -> [Sent] {
        var sent: [Sent] = []
        for ready in batch {
            switch ready {
            case .keepHere(let payload, let note, let row):
                try await keepHere(payload, note: note, photoRow: row, token: token)
                sent.append(.keptHere(photoId: payload.photoId, note: note))
            case .upload(let payload, let row):
                // Sent from the file as it goes out (an original may be 100 MiB); its first bytes say its type.
                let head: [UInt8]
                do {
                    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file(payload)))
                    defer { try? handle.close() }
                    head = [UInt8](try handle.read(upToCount: 16) ?? Data())
                } catch {
                    throw .local("the original cannot be read: \(error.localizedDescription)")
                }
                do {
                    _ = try await backend.send(
                        "POST", "/storage/v1/object/\(Self.bucket)/\(Self.objectName(accountId: accountId, hash: Self.hash(sha256: payload.sha256, photoId: payload.photoId)))",
                        uploading: file(payload), bearer: token, headers: [("Content-Type", ImageFormat.mimeType(of: head)), ("x-upsert", "true")],
                        timeout: .seconds(300))
                    sent.append(.uploaded)
                } catch {
                    guard let refusal = Self.refusal(error) else { throw error }
                    let note = "refused by the account's storage: \(refusal)"
                    try await keepHere(payload, note: note, photoRow: row, token: token)
                    sent.append(.keptHere(photoId: payload.photoId, note: note))
                }
            }
        }
        return sent
    }

    /// The photo's row goes without its file, saying why, for the account's other devices.
    private func keepHere(_ payload: OriginalUploads.Payload, note: String, photoRow: String?, token: String) async throws(BackendError) {
        guard let row = photoRow.flatMap({ Self.row($0, note: note) }) else { return }
        try await LikesPusher.upsertPhotos([row], backend: backend, token: token)
    }

    /// A refusal of the file itself, which sending it again will not change (its size, its type); nil
    /// for anything waiting or a new session may mend (the network, 5xx, 408, 429, 401, 403).
    static func refusal(_ error: BackendError) -> String? {
        guard let server = error.serverError, !error.isTransient, [400, 413, 415, 422].contains(server.status) else { return nil }
        return server.message
    }

    /// `row` (a photo's row as JSON) saying why its original is not shared.
    static func row(_ row: String, note: String) -> String? {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(row.utf8))) as? [String: Any] else { return nil }
        object["original_note"] = note
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A photo whose original stays here: why, in its metadata (photos show, status), announced.
    func sent(_ batch: [Ready], answer: [Sent], accountId: String, db: Database) throws -> PushSettled {
        var settled = PushSettled()
        for case .keptHere(let photoId, let note) in answer {
            try OriginalUploads.keepHere(db, photoId: photoId, note: note)
            settled.changes.append(PhotoChange(id: photoId, change: .updated))
        }
        return settled
    }
}
