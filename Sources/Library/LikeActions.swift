import Foundation
import Editing
import GRDB
import Shared
import Store
import Support

/// Likes, unlikes and dismissals: applied to the store at once, each like change written with its
/// outbox op in the same transaction (principle 1), coalesced with ops not yet sent. Each like and
/// unlike is stamped with the moment the person acted, on the server's clock (`clock`), and this
/// device: the server and every device keep the later of two devices' changes, whatever order they
/// arrive in.
public struct LikeActions: Sendable {
    public static let entity = OutboxEntry.Entity.like
    public let store: Store
    /// The server's clock as this device knows it; nil: the wall clock (tests, and no server).
    public let clock: ServerClock?
    /// Told of every change made (the photo's new state; new work in the outbox).
    public let announce: Announcements

    public init(store: Store, clock: ServerClock? = nil, announce: Announcements = .silent) {
        self.store = store
        self.clock = clock
        self.announce = announce
    }

    /// What the outbox carries for a like or an unlike: the desired final state of the server row,
    /// plus the photo's metadata so other devices can show it (the server's `photos` table).
    public struct Payload: Codable, Sendable, Equatable {
        public var photoId: String
        public var likedAt: Date
        public var deletedAt: Date?
        /// The action's stamp: milliseconds on the server's clock, and the device. Absent from ops queued
        /// by a version without stamps: their unlike's time, else their like's, stands in.
        public var actedAt: Int64?
        public var actedBy: String?
        /// The like did not exist before this op: if it is undone before being sent, nothing at all
        /// needs to reach the server.
        public var wasNew: Bool
        public var photo: PhotoRowFields?
    }


    /// How a like of a photo not yet compared with the library waits for its file.
    public struct ArrivalCheck: Sendable {
        /// The longest the like waits before it is sent anyway.
        public var seconds: TimeInterval
        /// Whether a file can come for a photo with these URLs (`photos.urls`): one that cannot is not waited for.
        public var canArrive: @Sendable (_ urls: String?) -> Bool

        public init(seconds: TimeInterval, canArrive: @escaping @Sendable (_ urls: String?) -> Bool) {
            self.seconds = seconds
            self.canArrive = canArrive
        }
    }

    public enum Outcome: Sendable, Equatable {
        /// The state changed and an op is queued (or two cancelled each other).
        case changed(queued: Bool)
        /// It already was so: nothing to do.
        case unchanged
    }

    /// `accountId` is the signed-in account's, or `GuestRows.accountId` signed out: the guest's likes
    /// are kept on this machine and never queued for a server (an adoption queues them later).
    /// `refuseDuplicatesWithin`: refuse (`LibraryError.duplicate`) a photo whose perceptual hash is known
    /// and within that many bits of a photo already in the account's library; nil: no check.
    /// `checkArrival`: when the hash is not known yet and the photo's file is on its way, the like is
    /// sent only after the file has been compared (`LikeCheckRows`; `DuplicateScanner` settles it), or
    /// at the check's deadline whatever happens; nil or no threshold: sent at once.
    /// `now`: the moment of the action, on both clocks (default: the server's clock's now for the action,
    /// this machine's for its bookkeeping; see `moments`).
    public func like(
        photoId: String, accountId: String, refuseDuplicatesWithin threshold: Int? = nil, checkArrival check: ArrivalCheck? = nil,
        now: Date? = nil
    ) throws -> Outcome {
        let (actedAt, now) = moments(now)
        return announced(photoId, .liked, try store.write { db in
            guard let threshold else { return try Self.setLiked(true, db: db, photoId: photoId, accountId: accountId, actedAt: actedAt, now: now) }
            let hash = try PerceptualHashQuery.hash(db, photoId: photoId)
            if let hash, let twin = try Self.twin(of: photoId, hash: hash, accountId: accountId, within: threshold, db: db) {
                throw LibraryError.duplicate(photoId, of: twin.id, distance: twin.distance)
            }
            let outcome = try Self.setLiked(true, db: db, photoId: photoId, accountId: accountId, actedAt: actedAt, now: now)
            if hash == nil, let check, outcome == .changed(queued: true),
               let photo = try PhotoRecord.fetchOne(db, key: photoId), !photo.source.isFileHere, check.canArrive(photo.urls),
               var op = try OutboxStore.pending(db, accountId: accountId, entity: Self.entity, entityId: photoId).last {
                op.nextAttemptAt = now.addingTimeInterval(check.seconds)
                try op.update(db)
                try LikeCheckRows.start(db, opId: op.opId, photoId: photoId)
            }
            return outcome
        })
    }

    /// Says what a committed change did: the photo's new state, and the outbox's new work.
    private func announced(_ photoId: String, _ kind: PhotoChange.Kind, _ outcome: Outcome) -> Outcome {
        guard outcome != .unchanged else { return outcome }
        announce.changed(photoId, kind)
        if outcome == .changed(queued: true) { announce.outboxQueued() }
        return outcome
    }

    /// The nearest photo of the account's library that `photoId` (whose hash is `value`) looks like, if
    /// one is within `threshold` bits (itself aside; an already-liked photo has no twin to refuse for).
    static func twin(
        of photoId: String, hash value: UInt64, accountId: String, within threshold: Int, db: Database
    ) throws -> (id: String, distance: Int)? {
        if let like = try LikeRecord.find(db, accountId: accountId, photoId: photoId), like.deletedAt == nil { return nil }
        let known = try DuplicateFinder.libraryHashes(db, accountId: accountId)
        guard let nearest = DuplicateFinder.nearest(to: PerceptualHash(value: value), in: known, excluding: photoId),
              nearest.distance <= threshold else { return nil }
        return nearest
    }

    public func unlike(photoId: String, accountId: String, now: Date? = nil) throws -> Outcome {
        let (actedAt, now) = moments(now)
        return announced(photoId, .unliked, try store.write { db in
            try Self.setLiked(false, db: db, photoId: photoId, accountId: accountId, actedAt: actedAt, now: now)
        })
    }

    /// An action's moment twice: on the server's clock, which orders it against other devices' (its
    /// stamp, its like and unlike times), and on this machine's, which its bookkeeping is compared with
    /// (the row's `updated_at` against a pull's start, the op's times against the outbox's due times).
    /// A time given (tests) is both.
    private func moments(_ given: Date?) -> (acted: Date, local: Date) {
        (given ?? clock?.now() ?? Date(), given ?? Date())
    }

    /// `actedAt` is the action's moment on the server's clock (a guest's like brought into an account:
    /// when the guest made it); `now` this machine's, for the row's and the op's bookkeeping.
    static func setLiked(_ liked: Bool, db: Database, photoId: String, accountId: String, actedAt: Date, now: Date) throws -> Outcome {
        guard var photo = try PhotoRecord.fetchOne(db, key: photoId) else { throw LibraryError.unknownPhoto(photoId) }
        let existing = try LikeRecord.find(db, accountId: accountId, photoId: photoId)
        let isLiked = existing.map { $0.deletedAt == nil } ?? false
        guard isLiked != liked else { return .unchanged }

        let pending = try OutboxStore.pending(db, accountId: accountId, entity: entity, entityId: photoId)
        let pendingPayload = try pending.last.map { try OutboxPayload.decode(Payload.self, from: $0.payload) }
        // Nothing about this like may have reached the server yet: no op attempted, none in flight.
        let inFlight = try OutboxStore.inFlightCount(db, accountId: accountId, entity: entity, entityId: photoId)
        let neverLeft = inFlight == 0 && pending.allSatisfy { $0.attempts == 0 }

        // A like and its unlike never cancel to nothing: the server's row for this photo is shared
        // with the account's other devices, and it may hold a like this device has not pulled yet (or
        // passed over while its own op waited). The pair collapses into the last intent, which is sent
        // and wins by order (docs/architecture.md, "Coalescing").
        var record = existing ?? LikeRecord(accountId: accountId, photoId: photoId, likedAt: actedAt, updatedAt: now)
        if liked {
            if existing?.deletedAt != nil { record.likedAt = actedAt }
            record.deletedAt = nil
        } else {
            record.deletedAt = actedAt
        }
        record.updatedAt = now
        // Later than whatever the row held, even when this device's idea of the server's time moved back
        // since: the person's newest action is the newest here.
        let stamp = ActionStamp(
            milliseconds: max(ActionStamp.milliseconds(actedAt), existing.map { $0.stamp.milliseconds + 1 } ?? .min),
            device: try DeviceRows.id(db))
        record.stamp = stamp
        try record.save(db)
        guard accountId != GuestRows.accountId else { return .changed(queued: false) }

        // Repeats collapse: only the latest intent per photo waits in the outbox.
        for op in pending { try op.delete(db) }
        // A photo whose only copy is a file here sends that file with its like, for the account's
        // other devices (its row then names it).
        if liked { photo = try OriginalUploads.queue(photo, accountId: accountId, db: db, now: now) }
        let payload = Payload(
            photoId: photoId, likedAt: record.likedAt, deletedAt: record.deletedAt, actedAt: stamp.milliseconds, actedBy: stamp.device,
            wasNew: neverLeft && (pendingPayload?.wasNew ?? (existing == nil)),
            photo: PhotoRowFields(photo))
        let op = OutboxEntry(
            accountId: accountId, entity: entity, entityId: photoId, op: liked ? .like : .unlike,
            payload: try OutboxPayload.encode(payload), now: now)
        try op.insert(db)
        return .changed(queued: true)
    }

    /// Dismissal is local only: a dismissed photo never shows again in searches, feeds or random picks.
    public func setDismissed(_ dismissed: Bool, photoId: String, now: Date = Date()) throws -> Outcome {
        announced(photoId, dismissed ? .dismissed : .restored, try store.write { db in
            guard var photo = try PhotoRecord.fetchOne(db, key: photoId) else { throw LibraryError.unknownPhoto(photoId) }
            guard (photo.dismissedAt != nil) != dismissed else { return .unchanged }
            photo.dismissedAt = dismissed ? now : nil
            try photo.update(db)
            return .changed(queued: false)
        })
    }
}
