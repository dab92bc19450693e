import Foundation
import GRDB
import Shared
import Support

/// The profile's rows: the `accounts` row, its `profile` ops in the outbox, and when it was last read
/// from the server (`cached_values`). A local change and its outbox entry commit in one transaction.
/// The username carries the stamp of the rename that set it (`ActionStamp`): between two devices'
/// renames the later one stands, here as on the server.
public struct ProfileStore: Sendable {
    public let store: Store

    public static let entity = OutboxEntry.Entity.profile

    public init(store: Store) {
        self.store = store
    }

    public struct QueuedOp: Sendable {
        public var seq: Int64
        public var opId: String
        public var username: String
        public var attempts: Int
        /// The rename's stamp (an op queued before stamps: its queue time on this device's clock).
        public var stamp: ActionStamp
    }

    /// What a rename's op carries.
    struct Payload: Codable {
        var username: String
        /// Milliseconds on the server's clock, and the device.
        var setAt: Int64?
        var setBy: String?
    }

    /// The server's profile row, its times read.
    public struct Pulled: Sendable {
        public var username: String
        public var email: String?
        public var createdAt: Date?
        public var lastSignInAt: Date?
        public var updatedAt: Date?
        /// The rename the server's username comes from; nil from a server without stamps.
        public var usernameStamp: ActionStamp?

        public init(
            username: String, email: String?, createdAt: Date?, lastSignInAt: Date?, updatedAt: Date?, usernameStamp: ActionStamp? = nil
        ) {
            self.username = username
            self.email = email
            self.createdAt = createdAt
            self.lastSignInAt = lastSignInAt
            self.updatedAt = updatedAt
            self.usernameStamp = usernameStamp
        }
    }

    private static func fetchedKey(_ userId: String) -> String { "profile_fetched_at:\(userId)" }

    /// The profile as the store holds it, with its sync state, or nil for an unknown account.
    public func profile(_ userId: String) throws -> Profile? {
        try store.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM accounts WHERE id = ?", arguments: [userId]) else { return nil }
            let latest = try Row.fetchOne(
                db, sql: "SELECT state, last_error, updated_at FROM outbox WHERE account_id = ? AND entity = ? ORDER BY seq DESC LIMIT 1",
                arguments: [userId, Self.entity])
            let acknowledged: Date? = row["profile_updated_at"]
            var sync = Profile.SyncState.synced
            var reason: String?
            if let latest {
                switch latest["state"] as String {
                case "rejected":
                    // A rejection that a later accepted change superseded no longer describes the profile.
                    let rejectedAt: Date? = latest["updated_at"]
                    if let rejectedAt, let acknowledged, acknowledged > rejectedAt { break }
                    sync = .rejected
                    reason = latest["last_error"]
                default:
                    sync = .pending
                }
            }
            return Profile(
                userId: userId, email: row["email"], username: row["username"], createdAt: row["created_at"],
                lastSignInAt: row["last_sign_in_at"], updatedAt: acknowledged, sync: sync, rejectedReason: reason)
        }
    }

    public func fetchedAt(_ userId: String) throws -> Date? {
        try store.read { db in try CachedValue.fetch(db, key: Self.fetchedKey(userId))?.fetchedAt }
    }

    /// Sets the username here and queues it, in one transaction. A pending (not yet sent) change to the
    /// username is replaced: only the newest name matters. Returns the new op's id, or nil when the
    /// name is already the one held and nothing is queued. `actedAt` is the rename's moment on the
    /// server's clock.
    public func setUsername(_ username: String, userId: String, actedAt: Date, now: Date = Date()) throws -> String? {
        try store.write { db in
            let current = try String.fetchOne(db, sql: "SELECT username FROM accounts WHERE id = ?", arguments: [userId])
            let queued = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM outbox WHERE account_id = ? AND entity = ? AND state IN ('pending', 'in_flight')",
                arguments: [userId, Self.entity]) ?? 0
            if current == username && queued == 0 { return nil }
            // Later than the name held, even if this device's idea of the server's time moved back since.
            let held = try Self.usernameStamp(db, userId: userId)
            let stamp = ActionStamp(
                milliseconds: max(ActionStamp.milliseconds(actedAt), held.map { $0.milliseconds + 1 } ?? .min), device: try DeviceRows.id(db))
            try db.execute(
                sql: "UPDATE accounts SET username = ?, username_acted_ms = ?, username_acted_by = ? WHERE id = ?",
                arguments: [username, stamp.milliseconds, stamp.device, userId])
            try db.execute(
                sql: "DELETE FROM outbox WHERE account_id = ? AND entity = ? AND state = 'pending'", arguments: [userId, Self.entity])
            let opId = UUID().uuidString.lowercased()
            let payload = try OutboxPayload.encode(Payload(username: username, setAt: stamp.milliseconds, setBy: stamp.device))
            try db.execute(
                sql: """
                    INSERT INTO outbox (op_id, account_id, entity, entity_id, op, payload, state, attempts, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)
                    """,
                arguments: [opId, userId, Self.entity, userId, OutboxEntry.Op.setUsername, payload, now, now])
            return opId
        }
    }

    /// The next profile op of `userId` that is due, marked in flight; or nil, with when the next one
    /// will be due (if any is waiting).
    /// An earlier op that a later rename replaces is dropped first: a rename that was on its way when
    /// the next one was made comes back postponed (or pending again after a crash), and sent after the
    /// later one it would undo it on the server.
    public func claimNext(userId: String, now: Date = Date()) throws -> (op: QueuedOp?, nextDue: Date?) {
        try store.write { db in
            try db.execute(
                sql: """
                    DELETE FROM outbox WHERE account_id = ? AND entity = ? AND state IN ('pending', 'rejected')
                      AND seq < (SELECT max(seq) FROM outbox WHERE account_id = ? AND entity = ? AND state IN ('pending', 'in_flight'))
                    """,
                arguments: [userId, Self.entity, userId, Self.entity])
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT seq, op_id, payload, attempts, created_at FROM outbox
                    WHERE account_id = ? AND entity = ? AND state = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
                    ORDER BY seq LIMIT 1
                    """,
                arguments: [userId, Self.entity, now])
            guard let row else {
                let next = try Date.fetchOne(
                    db, sql: "SELECT min(next_attempt_at) FROM outbox WHERE account_id = ? AND entity = ? AND state = 'pending'",
                    arguments: [userId, Self.entity])
                return (nil, next)
            }
            let seq: Int64 = row["seq"]
            try db.execute(
                sql: "UPDATE outbox SET state = 'in_flight', attempts = attempts + 1, updated_at = ? WHERE seq = ?", arguments: [now, seq])
            let text: String = row["payload"]
            let payload = try? JSONDecoder().decode(Payload.self, from: Data(text.utf8))
            let queuedAt: Date = row["created_at"]
            let stamp = ActionStamp(
                milliseconds: payload?.setAt ?? ActionStamp.milliseconds(queuedAt), device: try payload?.setBy ?? DeviceRows.id(db))
            return (QueuedOp(seq: seq, opId: row["op_id"], username: payload?.username ?? "", attempts: row["attempts"] as Int + 1, stamp: stamp), nil)
        }
    }

    /// The server answered the op with its row as kept: the op leaves the outbox and the profile is in
    /// step. When the server kept another rename (a later one from another device), the store takes it
    /// unless the person renamed again here since. Returns whether the op gave way.
    @discardableResult
    public func acknowledge(_ op: QueuedOp, userId: String, kept: Pulled, now: Date = Date()) throws -> Bool {
        try store.write { db in
            try db.execute(sql: "DELETE FROM outbox WHERE seq = ?", arguments: [op.seq])
            try db.execute(sql: "UPDATE accounts SET profile_updated_at = ? WHERE id = ?", arguments: [now, userId])
            guard let stamp = kept.usernameStamp, stamp != op.stamp else { return false }
            if let held = try Self.usernameStamp(db, userId: userId), held > op.stamp { return true }
            try Self.setUsername(db, kept.username, stamp: stamp, userId: userId)
            try CachedValue.save(db, key: Self.fetchedKey(userId), value: kept.username, fetchedAt: now)
            return true
        }
    }

    /// The stamp of the username the store holds; nil before stamps.
    static func usernameStamp(_ db: Database, userId: String) throws -> ActionStamp? {
        guard let row = try Row.fetchOne(
            db, sql: "SELECT username_acted_ms, username_acted_by FROM accounts WHERE id = ?", arguments: [userId]),
            let ms = row["username_acted_ms"] as Int64?
        else { return nil }
        return ActionStamp(milliseconds: ms, device: row["username_acted_by"] ?? "")
    }

    private static func setUsername(_ db: Database, _ username: String, stamp: ActionStamp?, userId: String) throws {
        try db.execute(
            sql: "UPDATE accounts SET username = ?, username_acted_ms = ?, username_acted_by = ? WHERE id = ?",
            arguments: [username, stamp?.milliseconds, stamp?.device, userId])
    }

    /// Try again at `retryAt` (network, 408, 429, 5xx).
    public func postpone(_ op: QueuedOp, until retryAt: Date, error: String, now: Date = Date()) throws {
        try store.write { db in
            try db.execute(
                sql: "UPDATE outbox SET state = 'pending', next_attempt_at = ?, last_error = ?, updated_at = ? WHERE seq = ?",
                arguments: [retryAt, error, now, op.seq])
        }
    }

    /// Back to pending at once (the session went away mid-push; the op waits for its account).
    public func release(_ op: QueuedOp, now: Date = Date()) throws {
        try store.write { db in
            try db.execute(sql: "UPDATE outbox SET state = 'pending', updated_at = ? WHERE seq = ?", arguments: [now, op.seq])
        }
    }

    /// The server refused the op for good: kept, with its reason, for `splashctl queue` to show.
    /// Marks the op rejected and, in the same transaction, shows the server's last known username
    /// again (kept by `applyPulled`), unless another change is still queued: a reader never sees the
    /// refusal beside the refused name. The pull that follows brings the server's current one.
    public func reject(_ op: QueuedOp, userId: String, reason: String, now: Date = Date()) throws {
        try store.write { db in
            try db.execute(
                sql: "UPDATE outbox SET state = 'rejected', last_error = ?, updated_at = ? WHERE seq = ?",
                arguments: [reason, now, op.seq])
            try db.execute(
                sql: """
                    UPDATE accounts SET username = (SELECT value FROM cached_values WHERE key = ?)
                    WHERE id = ? AND EXISTS (SELECT 1 FROM cached_values WHERE key = ?)
                      AND NOT EXISTS (SELECT 1 FROM outbox WHERE account_id = ? AND entity = ? AND state IN ('pending', 'in_flight'))
                    """,
                arguments: [Self.fetchedKey(userId), userId, Self.fetchedKey(userId), userId, Self.entity])
        }
    }

    /// Ops left in flight by a crash go back to pending (a resend is harmless: it sets the same name).
    public func recoverInFlight() throws {
        try store.write { db in
            try db.execute(sql: "UPDATE outbox SET state = 'pending' WHERE entity = ? AND state = 'in_flight'", arguments: [Self.entity])
        }
    }

    /// Applies the server's profile. The server's username stands when its rename is later than the one
    /// held here (a rename queued here and not yet sent then gives way: the server would keep the later
    /// one); without stamps on either side, unless a local change is still queued. Returns whether
    /// anything the person sees changed.
    public func applyPulled(_ remote: Pulled, userId: String, now: Date = Date()) throws -> Bool {
        try store.write { db in
            let before = try Row.fetchOne(db, sql: "SELECT username, email FROM accounts WHERE id = ?", arguments: [userId])
            let queued = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM outbox WHERE account_id = ? AND entity = ? AND state IN ('pending', 'in_flight')",
                arguments: [userId, Self.entity]) ?? 0
            let held = try Self.usernameStamp(db, userId: userId)
            let serverWins: Bool
            if let stamp = remote.usernameStamp, let held {
                serverWins = stamp > held
            } else {
                serverWins = queued == 0
            }
            if serverWins {
                try Self.setUsername(db, remote.username, stamp: remote.usernameStamp, userId: userId)
                if queued > 0 {
                    try db.execute(
                        sql: "DELETE FROM outbox WHERE account_id = ? AND entity = ? AND state IN ('pending', 'rejected')",
                        arguments: [userId, Self.entity])
                }
            }
            let username = serverWins ? remote.username : before?["username"] as String?
            try db.execute(
                sql: """
                    UPDATE accounts SET email = coalesce(?, email), created_at = coalesce(?, created_at),
                        last_sign_in_at = coalesce(?, last_sign_in_at), profile_updated_at = coalesce(?, profile_updated_at)
                    WHERE id = ?
                    """,
                arguments: [remote.email, remote.createdAt, remote.lastSignInAt, remote.updatedAt, userId])
            try CachedValue.save(db, key: Self.fetchedKey(userId), value: remote.username, fetchedAt: now)
            return before?["username"] as String? != username || (remote.email != nil && before?["email"] as String? != remote.email)
        }
    }
}
