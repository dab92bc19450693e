import Foundation

/// `sync.now`: pushes queued changes now; with `wait`, answers once the queue has drained or failed.
public struct SyncNowRequest: RPCRequest {
    public typealias Result = SyncResult
    public static let method = "sync.now"
    public static let summary = """
        Sends queued changes now, backoff or not, then pulls. With wait, answers when nothing is left to send and a pull \
        after it finished (outcome drained), or says what is left and why: rejected, offline, timed_out (within a second \
        of timeout_seconds, whatever the network does).
        """
    public static let parameters = [
        ParameterDoc("wait", "boolean", "Wait for the queue to drain (default false: start and answer at once)."),
        ParameterDoc("timeout_seconds", "integer", "With wait: give up waiting after this long (1 to 3600, default 60)."),
    ]
    public static let errors: [ErrorKind] = [.notSignedIn, .offline, .invalidInput]
    public static let example = SyncNowRequest(wait: true, timeoutSeconds: 30)
    public static let resultExample = SyncResult(
        pushed: 12, rejected: 0, pending: 0, inFlight: 0, online: true, drained: true, outcome: .drained)
    public var wait: Bool?
    public var timeoutSeconds: Int?
    public init(wait: Bool? = nil, timeoutSeconds: Int? = nil) {
        self.wait = wait
        self.timeoutSeconds = timeoutSeconds
    }
    public func validate() throws(RPCError) {
        if let timeoutSeconds, !(1...3600).contains(timeoutSeconds) {
            throw .invalidInput(.mustBeBetween(name: "timeout_seconds", minimum: 1, maximum: 3600), field: "timeout_seconds")
        }
    }
}

public struct SyncResult: Codable, Sendable, Equatable {
    /// How a `sync.now` ended. Without `wait` it is always `started`.
    public enum Outcome: String, Codable, Sendable, Equatable {
        /// Work was started; the answer did not wait for it.
        case started
        /// Nothing is left to send and a pull finished after the last push: every state agrees.
        case drained
        /// Nothing is left to send that the server will take; some changes were refused (`queue --rejected`).
        case rejected
        /// The account server cannot be reached; what is left goes when it can.
        case offline
        /// The timeout passed first; `reason` says what the last attempt met.
        case timedOut = "timed_out"
    }

    public var pushed: Int
    public var rejected: Int
    public var pending: Int
    public var inFlight: Int
    /// Likes held as near-duplicates, waiting for the person (`queue.list`); absent when none.
    public var duplicates: Int?
    public var online: Bool
    /// Nothing is left to send (rejected ops aside).
    public var drained: Bool
    public var outcome: Outcome
    /// Why changes are still left (the last failure), when they are.
    public var reason: String?
    public init(
        pushed: Int, rejected: Int, pending: Int, inFlight: Int, duplicates: Int? = nil, online: Bool, drained: Bool,
        outcome: Outcome = .started, reason: String? = nil
    ) {
        self.pushed = pushed
        self.rejected = rejected
        self.pending = pending
        self.inFlight = inFlight
        self.duplicates = duplicates
        self.online = online
        self.drained = drained
        self.outcome = outcome
        self.reason = reason
    }
}

/// `queue.list`: the changes waiting for the server, and those it refused.
public struct QueueListRequest: RPCRequest {
    public typealias Result = QueueListResult
    public static let method = "queue.list"
    public static let summary = """
        Lists queued changes (pending, in flight, rejected with the server's reason, duplicate: a like held because its \
        photo looks like one already in the library, until queue.retry keeps it or photos.unlike undoes it).
        """
    public static let parameters = [ParameterDoc("rejected", "boolean", "Only the rejected ones.")]
    public static let example = QueueListRequest(rejected: true)
    public static let resultExample = QueueListResult(ops: [QueuedOp(
        opId: "3f0b8c1e-7c55-4a8e-9d61-0b8e2f4a1c9d", entity: "like", entityId: "unsplash:Dwu85P9SOIk", op: "like",
        state: "rejected", attempts: 1, nextAttemptAt: nil, lastError: "403 42501: new row violates row-level security policy",
        createdAt: Date(timeIntervalSince1970: 1_795_000_000))])
    public var rejected: Bool?
    public init(rejected: Bool? = nil) { self.rejected = rejected }
}

public struct QueueListResult: Codable, Sendable, Equatable {
    public var ops: [QueuedOp]
    public init(ops: [QueuedOp]) { self.ops = ops }
}

public struct QueuedOp: Codable, Sendable, Equatable {
    public var opId: String
    public var entity: String
    public var entityId: String
    public var op: String
    public var state: String
    public var attempts: Int
    public var nextAttemptAt: Date?
    public var lastError: String?
    public var createdAt: Date
    /// State `duplicate`: the library photo this like's photo looks like, and how many bits apart.
    public var duplicateOf: String?
    public var distance: Int?
    public init(
        opId: String, entity: String, entityId: String, op: String, state: String, attempts: Int, nextAttemptAt: Date?,
        lastError: String?, createdAt: Date, duplicateOf: String? = nil, distance: Int? = nil
    ) {
        self.duplicateOf = duplicateOf
        self.distance = distance
        self.opId = opId
        self.entity = entity
        self.entityId = entityId
        self.op = op
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.createdAt = createdAt
    }
}

/// `queue.retry`: sends a rejected (or waiting) op again, now.
public struct QueueRetryRequest: RPCRequest {
    public typealias Result = QueueChangeResult
    public static let method = "queue.retry"
    public static let summary = "Makes a rejected, backed-off or duplicate-held op pending and due now (a held like is kept)."
    public static let parameters = [ParameterDoc("op_id", "string", required: true, "The op's id, from queue.list.")]
    public static let errors: [ErrorKind] = [.notFound]
    public static let example = QueueRetryRequest(opId: "3f0b8c1e-7c55-4a8e-9d61-0b8e2f4a1c9d")
    public static let resultExample = QueueChangeResult(opId: "3f0b8c1e-7c55-4a8e-9d61-0b8e2f4a1c9d", state: "pending")
    public var opId: String
    public init(opId: String) { self.opId = opId }
}

/// `queue.drop`: gives up on an op for good. The local change stays; the server never hears of it.
public struct QueueDropRequest: RPCRequest {
    public typealias Result = QueueChangeResult
    public static let method = "queue.drop"
    public static let summary = "Removes an op from the queue for good (the local change stays; the server never gets it)."
    public static let parameters = [ParameterDoc("op_id", "string", required: true, "The op's id, from queue.list.")]
    public static let errors: [ErrorKind] = [.notFound, .conflict]
    public static let example = QueueDropRequest(opId: "3f0b8c1e-7c55-4a8e-9d61-0b8e2f4a1c9d")
    public static let resultExample = QueueChangeResult(opId: "3f0b8c1e-7c55-4a8e-9d61-0b8e2f4a1c9d", state: "dropped")
    public var opId: String
    public init(opId: String) { self.opId = opId }
}

public struct QueueChangeResult: Codable, Sendable, Equatable {
    public var opId: String
    public var state: String
    public init(opId: String, state: String) {
        self.opId = opId
        self.state = state
    }
}
