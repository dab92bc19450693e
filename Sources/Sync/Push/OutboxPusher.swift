import GRDB
import Shared
import Store
import Supabase

/// Sends one entity's ops to the server. PushEngine owns the when (ordering, batching, backoff,
/// refusals); a pusher owns the how for its entity.
///
/// A batch is read once (`read`), in the transaction that takes it from the outbox: what it holds is
/// checked there and handed to `push` as read, also to each half of a batch the server refused, so a
/// push of 10,000 likes does not parse their payloads twice (it did: 80 ms each time).
protocol OutboxPusher: Sendable {
    /// An op read and checked: what `push` sends.
    associatedtype Ready: Sendable
    /// What the server answered that `sent` needs (the rows as it kept them).
    associatedtype Answer: Sendable = Void
    /// The outbox `entity` it sends.
    var entity: OutboxEntry.Entity { get }
    /// Ops per request: likes go in bulk, edits one file at a time.
    var batchSize: Int { get }
    /// How its ops are named in logs ("likes", "edits").
    var noun: String { get }
    /// Whether its ops are bulk transfers (whole files), which wait while `BackgroundGate` holds them
    /// (a metered network); small ops (likes, profile, edit rows) go on.
    var isBulk: Bool { get }
    /// Each op of the batch, in order: ready to send, or why it cannot succeed whatever the network
    /// does (this version cannot read it, the file it uploads is gone), in words a person can act on.
    /// Such an op is rejected and shown, never retried forever, nor dropped in silence. `db` is the
    /// transaction that took the batch; an error thrown leaves the batch in the outbox.
    func read(_ batch: [OutboxEntry], db: Database) throws -> [OutboxReading<Ready>]
    /// Sends what `read` made ready; idempotent, so a resend after a crash is harmless.
    func push(_ batch: [Ready], token: String, accountId: String) async throws(BackendError) -> Answer
    /// The server took `batch`, as `push` sent it: what the pusher keeps of that (the photos' rows the
    /// server now holds; the rows it kept instead of this device's, when a later change made elsewhere
    /// won), written in the transaction that takes its ops out of the outbox.
    func sent(_ batch: [Ready], answer: Answer, accountId: String, db: Database) throws -> PushSettled
}

extension OutboxPusher {
    var isBulk: Bool { false }
}

/// One op as its pusher read it.
enum OutboxReading<Ready: Sendable>: Sendable {
    case ready(Ready)
    /// It cannot succeed whatever the network does: why.
    case unsendable(String)

    /// A payload this version of splashd cannot read (written by another version, or damaged): `detail`
    /// says what is wrong with it.
    static func unreadable(_ detail: String) -> Self {
        .unsendable("this version of splashd cannot read the queued change: \(detail)")
    }
}

/// What a batch the server took changed here.
struct PushSettled: Sendable {
    /// Changes a person sees: a row the server kept over this device's op.
    var changes: [PhotoChange] = []
    /// Ops whose change the server did not keep: a later one, made on another device, stands.
    var gaveWay: [String] = []
}

extension OutboxPusher {
    func sent(_ batch: [Ready], answer: Answer, accountId: String, db: Database) throws -> PushSettled { PushSettled() }

    /// Each op of the batch read on its own: the op decoded by `decode` (one whose payload does not
    /// decode is one this version of splashd cannot read), then `problem` asked why what it read cannot
    /// be sent (nil: it can).
    func readEach(
        _ batch: [OutboxEntry], decode: (OutboxEntry) throws -> Ready, problem: (Ready, OutboxEntry) -> String?
    ) -> [OutboxReading<Ready>] {
        batch.map { op in
            let ready: Ready
            do {
                ready = try decode(op)
            } catch {
                return .unreadable("\(error)")
            }
            return problem(ready, op).map { .unsendable($0) } ?? .ready(ready)
        }
    }
}
