import Account
import Store

/// Sends one entity's ops to the server. PushEngine owns the when (ordering, batching, backoff,
/// refusals); a pusher owns the how for its entity.
protocol OutboxPusher: Sendable {
    /// The outbox `entity` it sends.
    var entity: String { get }
    /// Ops per request: likes go in bulk, edits one file at a time.
    var batchSize: Int { get }
    /// How its ops are named in logs ("likes", "edits").
    var noun: String { get }
    /// Why `op` cannot succeed whatever the network does (this version cannot read it, the file it
    /// uploads is gone), in words a person can act on; nil when it can be sent. Such an op is
    /// rejected and shown, never retried forever, nor dropped in silence.
    func problem(with op: OutboxEntry) -> String?
    /// `problem(with:)` for each op of a batch, in order (a pusher may read the batch at once).
    func problems(in batch: [OutboxEntry]) -> [String?]
    /// Sends the batch; idempotent, so a resend after a crash is harmless.
    func push(_ batch: [OutboxEntry], token: String, accountId: String) async throws(BackendError)
}

extension OutboxPusher {
    func problems(in batch: [OutboxEntry]) -> [String?] { batch.map(problem(with:)) }
}
