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
    /// Throws when an op cannot be read by this version; such ops are kept and shown, never dropped.
    func check(_ batch: [OutboxEntry]) throws
    /// Sends the batch; idempotent, so a resend after a crash is harmless.
    func push(_ batch: [OutboxEntry], token: String, accountId: String) async throws(BackendError)
}
