import Foundation
import GRDB

/// A Google Photos picking session as the store keeps it (schema v7).
public struct GoogleSessionRow: Sendable, Equatable {
    public enum State: String, Sendable {
        case picking, importing, done, expired, failed
        public var finished: Bool { self == .done || self == .expired || self == .failed }
    }

    public var sessionId: String
    public var accountId: String
    public var pickerUri: String
    public var pollInterval: Duration
    public var expiresAt: Date
    public var state: State
    public var detail: String?
    public var createdAt: Date

    public init(
        sessionId: String, accountId: String, pickerUri: String, pollInterval: Duration, expiresAt: Date, state: State = .picking,
        detail: String? = nil, createdAt: Date
    ) {
        self.sessionId = sessionId
        self.accountId = accountId
        self.pickerUri = pickerUri
        self.pollInterval = pollInterval
        self.expiresAt = expiresAt
        self.state = state
        self.detail = detail
        self.createdAt = createdAt
    }

    init(row: Row) {
        sessionId = row["session_id"]
        accountId = row["account_id"]
        pickerUri = row["picker_uri"]
        pollInterval = .milliseconds(row["poll_interval_ms"] as Int64)
        expiresAt = row["expires_at"]
        state = State(rawValue: row["state"]) ?? .failed
        detail = row["detail"]
        createdAt = row["created_at"]
    }
}

/// One item the person picked.
public struct GooglePickRow: Sendable, Equatable {
    public enum State: String, Sendable {
        case waiting, imported, duplicate, skipped, failed
    }

    public var itemId: String
    public var position: Int
    public var kind: String
    public var filename: String?
    public var mimeType: String?
    public var width: Int?
    public var height: Int?
    public var takenAt: Date?
    public var camera: String?
    public var state: State
    public var photoId: String?
    public var detail: String?

    public init(
        itemId: String, position: Int, kind: String, filename: String?, mimeType: String?, width: Int?, height: Int?, takenAt: Date?,
        camera: String?, state: State = .waiting, photoId: String? = nil, detail: String? = nil
    ) {
        self.itemId = itemId
        self.position = position
        self.kind = kind
        self.filename = filename
        self.mimeType = mimeType
        self.width = width
        self.height = height
        self.takenAt = takenAt
        self.camera = camera
        self.state = state
        self.photoId = photoId
        self.detail = detail
    }

    init(row: Row) {
        self.init(
            itemId: row["item_id"], position: row["position"], kind: row["kind"], filename: row["filename"], mimeType: row["mime_type"],
            width: row["width"], height: row["height"], takenAt: row["taken_at"], camera: row["camera"],
            state: State(rawValue: row["state"]) ?? .failed, photoId: row["photo_id"], detail: row["detail"])
    }
}

/// The picking sessions and their picks: what a Google Photos import has left to do survives a stop.
public enum GooglePickRows {
    public static func insert(_ db: Database, _ session: GoogleSessionRow) throws {
        try db.execute(sql: """
            INSERT INTO google_sessions (session_id, account_id, picker_uri, poll_interval_ms, expires_at, state, detail, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [
                session.sessionId, session.accountId, session.pickerUri, Self.milliseconds(session.pollInterval), session.expiresAt,
                session.state.rawValue, session.detail, session.createdAt,
            ])
    }

    public static func session(_ db: Database, id: String) throws -> GoogleSessionRow? {
        try Row.fetchOne(db, sql: "SELECT * FROM google_sessions WHERE session_id = ?", arguments: [id]).map(GoogleSessionRow.init(row:))
    }

    /// Sessions still picking or importing, oldest first.
    public static func unfinished(_ db: Database) throws -> [GoogleSessionRow] {
        try Row.fetchAll(db, sql: """
            SELECT * FROM google_sessions WHERE state IN ('picking', 'importing') ORDER BY created_at
            """).map(GoogleSessionRow.init(row:))
    }

    public static func setState(_ db: Database, id: String, _ state: GoogleSessionRow.State, detail: String? = nil, now: Date) throws {
        try db.execute(sql: """
            UPDATE google_sessions SET state = ?, detail = ?, finished_at = CASE WHEN ? THEN ? ELSE NULL END WHERE session_id = ?
            """, arguments: [state.rawValue, detail, state.finished, now, id])
    }

    /// The picks as listed (again after a restart: a pick already there keeps its state).
    public static func insert(_ db: Database, sessionId: String, picks: [GooglePickRow]) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO google_picks
                (session_id, item_id, position, kind, filename, mime_type, width, height, taken_at, camera, state, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for pick in picks {
            try statement.execute(arguments: [
                sessionId, pick.itemId, pick.position, pick.kind, pick.filename, pick.mimeType, pick.width, pick.height, pick.takenAt,
                pick.camera, pick.state.rawValue, pick.detail,
            ])
        }
    }

    public static func picks(_ db: Database, sessionId: String) throws -> [GooglePickRow] {
        try Row.fetchAll(db, sql: "SELECT * FROM google_picks WHERE session_id = ? ORDER BY position", arguments: [sessionId])
            .map(GooglePickRow.init(row:))
    }

    /// How many picks of a session stand in each state.
    public struct Counts: Sendable, Equatable {
        public var total = 0
        public var waiting = 0
        public var imported = 0
        public var duplicates = 0
        public var skipped = 0
        public var failed = 0
        public var done: Int { total - waiting }
        public init() {}

        /// `n` more picks in `state`: the one place a state is counted, from the statement below or from
        /// picks already read.
        public mutating func add(_ state: GooglePickRow.State, _ n: Int = 1) {
            total += n
            switch state {
            case .waiting: waiting += n
            case .imported: imported += n
            case .duplicate: duplicates += n
            case .skipped: skipped += n
            case .failed: failed += n
            }
        }
    }

    /// The session's picks counted by state in one statement: the importer says how far it is after every
    /// pick, and reading every pick for that made a 2,000-item import read four million rows.
    public static func counts(_ db: Database, sessionId: String) throws -> Counts {
        var counts = Counts()
        for row in try Row.fetchAll(db, sql: "SELECT state, count(*) FROM google_picks WHERE session_id = ? GROUP BY state", arguments: [sessionId]) {
            // An unknown state reads as failed, as a pick's row does (`GooglePickRow.init(row:)`).
            counts.add(GooglePickRow.State(rawValue: row[0]) ?? .failed, row[1])
        }
        return counts
    }

    public static func waiting(_ db: Database, sessionId: String) throws -> [GooglePickRow] {
        try Row.fetchAll(db, sql: "SELECT * FROM google_picks WHERE session_id = ? AND state = 'waiting' ORDER BY position", arguments: [sessionId])
            .map(GooglePickRow.init(row:))
    }

    public static func settle(
        _ db: Database, sessionId: String, itemId: String, _ state: GooglePickRow.State, photoId: String? = nil, detail: String? = nil
    ) throws {
        try db.execute(sql: """
            UPDATE google_picks SET state = ?, photo_id = ?, detail = ? WHERE session_id = ? AND item_id = ?
            """, arguments: [state.rawValue, photoId, detail, sessionId, itemId])
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
