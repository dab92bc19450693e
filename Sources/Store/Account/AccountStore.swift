import Foundation
import GRDB
import Shared

/// The `accounts` rows and the outbox counts the Account capability reads and writes.
public struct AccountStore: Sendable {
    public let store: Store

    public init(store: Store) {
        self.store = store
    }

    public struct Row: Sendable, Equatable {
        public var id: String
        public var email: String
        public var username: String?
        public var createdAt: Date?
        public var lastSignInAt: Date?
        public var profileUpdatedAt: Date?
        public var signedIn: Bool

        init(_ row: GRDB.Row) {
            id = row["id"]
            email = row["email"]
            username = row["username"]
            createdAt = row["created_at"]
            lastSignInAt = row["last_sign_in_at"]
            profileUpdatedAt = row["profile_updated_at"]
            signedIn = row["signed_in"]
        }
    }

    /// Records that account `id` is signed in here; every other account is marked signed out. The
    /// username is set only when given (a signed-in account keeps the one it had).
    public func recordSignIn(id: String, email: String, createdAt: Date?, lastSignInAt: Date?, username: String?) throws {
        try store.write { db in
            try db.execute(sql: "UPDATE accounts SET signed_in = 0 WHERE id <> ?", arguments: [id])
            try db.execute(
                sql: """
                    INSERT INTO accounts (id, email, username, created_at, last_sign_in_at, signed_in)
                    VALUES (?, ?, ?, ?, ?, 1)
                    ON CONFLICT (id) DO UPDATE SET
                        email = excluded.email,
                        username = coalesce(excluded.username, accounts.username),
                        created_at = coalesce(excluded.created_at, accounts.created_at),
                        last_sign_in_at = coalesce(excluded.last_sign_in_at, accounts.last_sign_in_at),
                        signed_in = 1
                    """,
                arguments: [id, email, username, createdAt, lastSignInAt])
        }
    }

    public func markSignedOut(_ id: String) throws {
        try store.write { db in try db.execute(sql: "UPDATE accounts SET signed_in = 0 WHERE id = ?", arguments: [id]) }
    }

    public func account(_ id: String) throws -> Row? {
        try store.read { db in try GRDB.Row.fetchOne(db, sql: "SELECT * FROM accounts WHERE id = ?", arguments: [id]).map(Row.init) }
    }

    /// How many of an account's changes stay queued for its next sign-in (pending, in flight or
    /// refused), for the messages of a sign-out; 0 when the store cannot be read.
    public func changesKept(accountId: String) -> Int {
        (try? outboxCounts(accountId: accountId)).map { $0.pending + $0.inFlight + $0.rejected } ?? 0
    }

    /// Changes queued for one account, whatever their state.
    public func outboxCounts(accountId: String) throws -> OutboxCounts {
        try store.read { db in
            let rows = try GRDB.Row.fetchAll(
                db, sql: "SELECT state, count(*) AS n FROM outbox WHERE account_id = ? GROUP BY state", arguments: [accountId])
            var counts = OutboxCounts(pending: 0, inFlight: 0, rejected: 0)
            for row in rows {
                let n: Int = row["n"]
                switch row["state"] as String {
                case "pending": counts.pending = n
                case "in_flight": counts.inFlight = n
                default: counts.rejected = n
                }
            }
            return counts
        }
    }
}
