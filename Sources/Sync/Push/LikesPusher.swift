import Foundation
import GRDB
import Library
import Logging
import Shared
import Store
import Supabase
import Support

/// Sends a batch of like ops as one call of the server's `push_likes`
/// (supabase/migrations/20250101000800_push_in_one_transaction.sql): the photos' metadata (so other
/// devices can show them) and the likes themselves, keyed by (user_id, photo_id), upserted in one
/// transaction, so no device ever sees a like before its photo's row. Unlikes are tombstones
/// (`deleted_at`), so every op is idempotent and a resend is harmless. Each like carries its action's
/// stamp; the server keeps the later of its row and the one sent (the last-word trigger) and answers
/// the likes it kept otherwise than sent, so a like that lost to a later change made elsewhere (or whose
/// stamp was clamped) is known at once and the store takes the server's row (`LikeMerge`). The photos'
/// rows are marked as this device's (`device`), so that its pull passes over them, as it does over its
/// own likes.
///
/// A row the server refuses refuses the whole call: PushEngine splits the batch to find it. A server
/// without the function answers 404 PGRST202, which names the migration (`ServerSchema`), and the
/// ops wait for it.
///
/// The rows are built by the store from the queued payloads (`LikePushRows`), in the transaction that
/// takes the batch; a request body is those rows joined, not decoded and encoded again.
struct LikesPusher: OutboxPusher {
    let backend: SupabaseBackend
    let store: Store
    let entity = LikeActions.entity
    let batchSize: Int
    let noun = "likes"
    /// The server's clock: an action stamped past its now (and the skew allowed) goes as now. Not known
    /// here (no answer yet): the server bounds it, as it does every write's.
    let clock: ServerClock?
    let logger: Logger

    func read(_ batch: [OutboxEntry], db: Database) throws -> [OutboxReading<LikePushRows.Rows>] {
        let latest = clock?.latestAccepted().map(ActionStamp.milliseconds) ?? .max
        let readings = try LikePushRows.fetch(db, seqs: batch.compactMap(\.seq), latest: latest, device: store.deviceId)
        for case .rows(let rows) in readings.values {
            guard let from = rows.clampedFrom else { continue }
            logger.warning("a like was stamped in the future; sent as the server's now", metadata: [
                "splashd_op": "push", "splashd_photo": "\(rows.photoId)",
                "splashd_stamp": "\(ActionStamp(milliseconds: from, device: rows.stamp.device).wireText)",
                "splashd_sent_as": "\(rows.stamp.wireText)",
            ])
        }
        return batch.map { op in
            switch op.seq.flatMap({ readings[$0] }) {
            case .rows(let rows): .ready(rows)
            case .unreadable(let problem): .unreadable(problem)
            // Not in the outbox, though taken from it in this transaction: nothing is left to send.
            case nil: .unsendable("the queued change is no longer in the outbox")
            }
        }
    }

    func push(_ batch: [LikePushRows.Rows], token: String, accountId: String) async throws(BackendError) -> [ServerLikeRow] {
        // Unlikes carry their photo too: an unlike may be the first the server hears of a photo (a like
        // and its unlike made before either was sent), and a device that pulls the tombstone and later a
        // like again needs the photo's URLs — unless the server holds the row already (`LikePushRows`
        // reads none then).
        let response = try await backend.send(
            "POST", Self.function, query: [("select", Self.kept)],
            body: Self.call(device: store.deviceId, photos: batch.compactMap(\.photo), likes: batch.map(\.like)), bearer: token)
        return try SupabaseBackend.decode([ServerLikeRow].self, from: response)
    }

    /// The rows the server kept otherwise than sent (a later one from another device stands, or the
    /// stamp was clamped): the store takes each unless the person acted again since.
    func sent(_ batch: [LikePushRows.Rows], answer: [ServerLikeRow], accountId: String, db: Database) throws -> PushSettled {
        try PhotoPushRow.recordHeld(db, accountId: accountId, rows: batch.compactMap(\.photo))
        let sent = Dictionary(batch.map { ($0.photoId, $0) }, uniquingKeysWith: { _, last in last })
        var settled = PushSettled()
        var superseded = 0
        let now = Date()
        try ServerPhotos.ensureBare(answer.map(\.photo_id), db: db, now: now)
        for row in answer {
            guard let mine = sent[row.photo_id], row.stamp != mine.stamp else { continue }
            settled.gaveWay.append(row.photo_id)
            let own = ActionStamp(milliseconds: mine.clampedFrom ?? mine.stamp.milliseconds, device: mine.stamp.device)
            if case .applied(let change?) = try LikeMerge.merge(
                row, accountId: accountId, reason: .answered(sent: own), now: now, db: db, superseded: &superseded) {
                settled.changes.append(change)
            }
        }
        return settled
    }

    /// The columns of the answer: what `LikeMerge` needs of a row.
    static let kept = "photo_id,liked_at,deleted_at,acted_at,acted_by"
    static let function = "/rest/v1/rpc/push_likes"

    /// The function's arguments as one JSON object: `device` as a JSON string (a device id is hex, made
    /// by SchemaV9: nothing in it to escape), and the rows, each already a whole JSON text, joined.
    static func call(device: String, photos: [String], likes: [String]) -> [UInt8] {
        var body = Array(#"{"device":""#.utf8) + Array(device.utf8) + [UInt8(ascii: "\"")]
        body += Array(#","photo_rows":"#.utf8) + array(photos)
        body += Array(#","like_rows":"#.utf8) + array(likes)
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// JSON objects, each already a whole JSON text, as one JSON array.
    static func array(_ objects: [String]) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(objects.reduce(2) { $0 + $1.utf8.count + 1 })
        body.append(UInt8(ascii: "["))
        for (index, object) in objects.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: object.utf8)
        }
        body.append(UInt8(ascii: "]"))
        return body
    }

    static let upsert = [("Prefer", "resolution=merge-duplicates,return=minimal")]
    static let conflict = [("on_conflict", "user_id,photo_id")]

    /// Photos' rows (`PhotoPushRow`) as one upsert: a batch of likes' photos, or an edit's photo.
    static func upsertPhotos(_ rows: [String], backend: SupabaseBackend, token: String) async throws(BackendError) {
        _ = try await backend.send("POST", "/rest/v1/photos", query: conflict, body: array(rows), bearer: token, headers: upsert)
    }
}
