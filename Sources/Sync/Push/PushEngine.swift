import Account
import Foundation
import GRDB
import Library
import Logging
import ServiceLifecycle
import Shared
import Store
import Supabase
import Support
import Synchronization

/// Drains the outbox to the server: likes and unlikes in batches, edits one by one, in order per
/// entity, with retries.
///
/// Idle means asleep: with nothing due the engine waits for a ring (an op was queued, the network came
/// back, someone signed in); with ops waiting on a backoff it sleeps until the earliest is due.
/// Failures are classed so (docs/architecture.md): network errors, 408, 429 and 5xx retry with backoff
/// (Retry-After honoured); an expired token is refreshed once (SessionManager.authorized); any other
/// 4xx rejects the op with the server's reason — after splitting the batch, so one bad op cannot
/// hold back the good ones.
public final class PushEngine: Service, Sendable {
    public struct Configuration: Sendable {
        /// Likes per request, at most: a batch is also cut at `batchBytes` of queued payload. The next
        /// batch is read from the store while this one is on the wire, so batches are small enough for
        /// that read to hide behind the request: 10,000 queued likes (bench scenario 2) went in
        /// 0.89–0.92 s in four batches of 2,500, in 0.92–0.99 s in two of 5,000, in 1.10–1.24 s in ten of
        /// 1,000 (each round trip is a transaction on both sides), and in 1.15–1.2 s in one of 9,855
        /// (and 145) read before it was sent.
        public var batchSize = 2_500
        /// Queued payload per batch, at most. A like's payload carries its photo's metadata (about 400
        /// bytes with the photo's URLs), and the photos' upsert body is about as large, so 4 MiB keeps
        /// each request body within a few MiB. A single op larger than this still goes, alone; a server
        /// that refuses a body as too large (413) has the batch split like any other refusal.
        public var batchBytes = 4 << 20
        /// Originals of local photos above this are not sent (originals.max_mib).
        public var originalMaximumBytes: Int64 = 100 << 20
        /// 1 s doubling to 5 min, with jitter (each delay between half and all of it).
        public var backoff = Backoff(minimum: .seconds(1), maximum: .seconds(300), jitter: 0.5)
        public init() {}
    }

    /// What a drain achieved, for `sync.now`.
    public struct Report: Sendable, Equatable {
        public var pushed = 0
        public var rejected = 0
        public var deferred = 0
        public init() {}
    }

    private let store: Store
    private let session: SessionManager
    private let pushers: [any OutboxPusher]
    private let network: NetworkGate
    private let configuration: Configuration
    private let logger: Logger
    /// Pushes what this engine has no pusher for (the profile's username, sent by the account's
    /// ProfileService), when a person or the network asks for everything to go now.
    private let alsoPush: @Sendable () async -> Void
    private let wakeup = Wakeup()
    private let gate: SyncGate
    /// Moves after every round (a batch sent, retried or refused) and every backoff reset:
    /// `SyncService` waits on it instead of on the drain itself, so its timeout holds whatever the
    /// network does.
    public let progressed = ChangeSignal()
    /// The last transient failure of a round, until a round succeeds.
    private let lastRoundFailure = Mutex<String?>(nil)
    /// What a push changed here (a row the server kept over this device's op), for every client to see.
    private let announce: @Sendable ([PhotoChange]) -> Void

    /// `dataDirectory` is where edits' renderings are (their paths are relative to it).
    public init(
        store: Store, session: SessionManager, backend: SupabaseBackend?, dataDirectory: String, network: NetworkGate,
        configuration: Configuration = .init(), gate: SyncGate = SyncGate(), clock: ServerClock? = nil, logger: Logger,
        alsoPush: @escaping @Sendable () async -> Void = {}, announce: @escaping @Sendable ([PhotoChange]) -> Void = { _ in }
    ) {
        self.announce = announce
        self.gate = gate
        self.store = store
        self.session = session
        self.pushers = backend.map { backend in
            [
                LikesPusher(backend: backend, store: store, batchSize: configuration.batchSize, clock: clock, logger: logger),
                EditsPusher(backend: backend, store: store, dataDirectory: dataDirectory),
                OriginalsPusher(backend: backend, dataDirectory: dataDirectory, maximumBytes: configuration.originalMaximumBytes),
            ]
        } ?? []
        self.network = network
        self.configuration = configuration
        self.logger = logger
        self.alsoPush = alsoPush
    }

    /// Something changed that may let work proceed: an op was queued, the network is back, a sign-in.
    public func ring() {
        wakeup.ring()
    }

    /// Send everything of `accountId` now, whatever its backoff says: a person asked to sync, or the
    /// backend answers again after an outage.
    public func sendNow(accountId: String) {
        do {
            _ = try store.write { db in try OutboxStore.clearBackoff(db, accountId: accountId) }
        } catch {
            logger.error("cannot read the outbox: \(error)", metadata: ["splashd_op": "push"])
        }
        ring()
        progressed.signal()
        // `sync.now` waits on `progressed`: it moves again when the other pushes have had their try.
        Task { [alsoPush, progressed] in
            await alsoPush()
            progressed.signal()
        }
    }

    /// The failure the last round met, while nothing has succeeded since.
    public var lastFailure: String? { lastRoundFailure.withLock { $0 } }

    public func run() async throws {
        let reset = try store.write { db in try OutboxStore.resetInFlight(db) }
        if reset > 0 {
            logger.notice("resending \(reset) ops that were in flight when splashd stopped", metadata: ["splashd_op": "push"])
        }
        await cancelWhenGracefulShutdown { await self.loop() }
    }

    private func loop() async {
        while !Task.isCancelled {
            var deadline: ContinuousClock.Instant?
            if let account = await pushableAccount(), network.isOnline() {
                _ = await drain(accountId: account)
                deadline = nextDeadline(accountId: account)
            }
            await wakeup.wait(until: deadline)
        }
    }

    /// The signed-in account whose ops may go out now (a signed-out account's ops wait for it).
    private func pushableAccount() async -> String? {
        guard !pushers.isEmpty else { return nil }
        let status = await session.status
        guard status.state != .signedOut else { return nil }
        return status.userId
    }

    private func nextDeadline(accountId: String) -> ContinuousClock.Instant? {
        let now = Date()
        let deadlines = pushersAllowedNow.compactMap { pusher -> ContinuousClock.Instant? in
            let due = (try? store.read { db in try OutboxStore.nextDue(db, accountId: accountId, entity: pusher.entity, now: now) }) ?? .nothing
            switch due {
            case .nothing: return nil
            case .now: return .now + .milliseconds(10)
            case .at(let date): return .now + .seconds(max(0, date.timeIntervalSince(now)))
            }
        }
        return deadlines.min()
    }

    /// The pushers whose ops may go now: not the bulk ones while the network is metered (their ops wait,
    /// and their due times wake nothing until the hold ends and rings).
    private var pushersAllowedNow: [any OutboxPusher] {
        network.allowsBulk() ? pushers : pushers.filter { !$0.isBulk }
    }

    /// Pushes everything due for `accountId`, likes first (they are small and many), then edits;
    /// batch after batch until nothing is due or a transient failure says to wait.
    @discardableResult
    public func drain(accountId: String) async -> Report {
        var report = Report()
        for pusher in pushersAllowedNow {
            let part = await drain(accountId: accountId, pusher: pusher)
            report.pushed += part.pushed
            report.rejected += part.rejected
            report.deferred += part.deferred
        }
        return report
    }

    /// Round after round, each in a turn of the gate: a batch is sent while the next one is taken from
    /// the outbox and read, so that the store's work for one batch is done while the other is on the
    /// wire. A batch read ahead and not sent (a transient failure, a shutdown) goes back to waiting.
    private func drain<Pusher: OutboxPusher>(accountId: String, pusher: Pusher) async -> Report {
        var report = Report()
        var ahead: Taken<Pusher.Ready>?
        while !Task.isCancelled {
            let round = await gate.run { [ahead] in await self.round(accountId: accountId, pusher: pusher, taken: ahead) }
            progressed.signal()
            report.pushed += round.report.pushed
            report.rejected += round.report.rejected
            report.deferred += round.report.deferred
            ahead = round.next
            if round.batch == 0 || !round.keepGoing { break }
        }
        if let ahead { putBack(ahead.batch) }
        return report
    }

    /// A batch taken from the outbox and read by its pusher, in one transaction.
    private struct Taken<Ready: Sendable>: Sendable {
        var batch: [OutboxEntry]
        var readings: [OutboxReading<Ready>]
        /// Cut at the batch's size or bytes: more ops may be due, worth taking while this batch is sent.
        var full: Bool
    }

    /// One batch (`taken`, or taken now) sent, and the next one taken meanwhile (nil when the engine
    /// should stop for now: it went back to waiting).
    private func round<Pusher: OutboxPusher>(
        accountId: String, pusher: Pusher, taken: Taken<Pusher.Ready>?
    ) async -> (batch: Int, report: Report, keepGoing: Bool, next: Taken<Pusher.Ready>?) {
        guard let taken = taken ?? take(accountId: accountId, pusher: pusher), !taken.batch.isEmpty else {
            return (0, Report(), false, nil)
        }
        // A batch that was not full took every op due: the next round's take (after this one is settled)
        // finds those queued meanwhile, with no write transaction spent on an outbox likely empty.
        async let following = taken.full ? take(accountId: accountId, pusher: pusher) : nil
        var report = Report()
        let keepGoing = await send(taken.batch, readings: taken.readings, pusher: pusher, accountId: accountId, report: &report)
        let next = await following
        guard keepGoing, let next, !next.batch.isEmpty else {
            if let next { putBack(next.batch) }
            return (taken.batch.count, report, keepGoing, nil)
        }
        return (taken.batch.count, report, true, next)
    }

    /// The ops due now, up to a batch, taken from the outbox (in flight) and read by `pusher` in one
    /// transaction; nil when the outbox cannot be read.
    private func take<Pusher: OutboxPusher>(accountId: String, pusher: Pusher) -> Taken<Pusher.Ready>? {
        let now = Date()
        let taken: Taken<Pusher.Ready>
        let dropped: Int
        do {
            (taken, dropped) = try store.write { db in
                let dropped = try OutboxStore.dropSuperseded(db, accountId: accountId)
                let all = try OutboxStore.due(db, accountId: accountId, entity: pusher.entity, now: now, limit: pusher.batchSize)
                let due = Self.prefix(all, bytes: self.configuration.batchBytes)
                try OutboxStore.markInFlight(db, due.compactMap(\.seq), now: now)
                let full = all.count == pusher.batchSize || due.count < all.count
                return (Taken(batch: due, readings: try pusher.read(due, db: db), full: full), dropped)
            }
        } catch {
            logger.error("cannot read the outbox: \(error)", metadata: ["splashd_op": "push"])
            return nil
        }
        if dropped > 0 {
            logger.info("dropped \(dropped) queued changes that later ones replace", metadata: [
                "splashd_op": "push", "splashd_count": "\(dropped)",
            ])
        }
        return taken
    }

    /// Ops taken but not sent wait again, as if never taken.
    private func putBack(_ ops: [OutboxEntry]) {
        do {
            try store.write { db in try OutboxStore.putBack(db, ops.compactMap(\.seq)) }
        } catch {
            // They stay in flight, and are sent again at the next start (OutboxStore.resetInFlight).
            logger.error("cannot put ops back in the outbox: \(error)", metadata: ["splashd_op": "push"])
        }
    }

    /// The longest run of `ops` from the first whose payloads come to at most `bytes`; never empty when
    /// `ops` is not (one op over the budget goes alone).
    static func prefix(_ ops: [OutboxEntry], bytes: Int) -> [OutboxEntry] {
        var total = 0
        for (index, op) in ops.enumerated() {
            total += op.payload.utf8.count
            if total > bytes { return Array(ops[..<max(index, 1)]) }
        }
        return ops
    }

    /// Sends one batch as its pusher read it and records the outcome of every op in it. Returns false
    /// when the engine should stop for now (a transient failure, or no session).
    private func send<Pusher: OutboxPusher>(
        _ whole: [OutboxEntry], readings: [OutboxReading<Pusher.Ready>], pusher: Pusher, accountId: String, report: inout Report
    ) async -> Bool {
        // An op that cannot succeed whatever the network does (unreadable by this version, its file
        // gone) is refused here with its reason, kept and shown, never retried forever.
        var batch: [OutboxEntry] = []
        var ready: [Pusher.Ready] = []
        for (op, reading) in zip(whole, readings) {
            switch reading {
            case .ready(let value):
                batch.append(op)
                ready.append(value)
            case .unsendable(let problem):
                reject([op], reason: problem)
                report.rejected += 1
            }
        }
        if batch.isEmpty { return true }
        return await push(batch, ready, pusher: pusher, accountId: accountId, report: &report)
    }

    private func push<Pusher: OutboxPusher>(
        _ batch: [OutboxEntry], _ ready: [Pusher.Ready], pusher: Pusher, accountId: String, report: inout Report
    ) async -> Bool {
        let started = ContinuousClock.now
        do throws(AccountFailure) {
            let answer = try await session.authorized { [ready] token throws(BackendError) in
                try await pusher.push(ready, token: token, accountId: accountId)
            }
            let settled = Mutex(PushSettled())
            finish(batch, .done { db in
                let outcome = try pusher.sent(ready, answer: answer, accountId: accountId, db: db)
                settled.withLock { $0 = outcome }
            })
            let outcome = settled.withLock { $0 }
            if !outcome.gaveWay.isEmpty {
                logger.info("\(outcome.gaveWay.count) \(pusher.noun) gave way to later changes made on another device", metadata: [
                    "splashd_op": "push", "splashd_count": "\(outcome.gaveWay.count)",
                    "splashd_entity": "\(outcome.gaveWay.prefix(5).joined(separator: ","))",
                ])
            }
            if !outcome.changes.isEmpty { announce(outcome.changes) }
            lastRoundFailure.withLock { $0 = nil }
            report.pushed += batch.count
            logger.info("pushed \(batch.count) \(pusher.noun)", metadata: [
                "splashd_op": "push", "splashd_count": "\(batch.count)",
                "splashd_duration_ms": "\(started.millisecondsElapsed)",
            ])
            return true
        } catch {
            return await handle(error, batch: batch, ready: ready, pusher: pusher, accountId: accountId, report: &report)
        }
    }

    private func handle<Pusher: OutboxPusher>(
        _ failure: AccountFailure, batch: [OutboxEntry], ready: [Pusher.Ready], pusher: Pusher, accountId: String, report: inout Report
    ) async -> Bool {
        switch failure {
        case .notSignedIn:
            // Signed out meanwhile: the ops stay, marked as this account's, for its next sign-in.
            finish(batch, .retry(after: 0, reason: "not signed in"))
            return false
        case .backend(let error):
            if error.isTransient {
                let attempts = batch.map(\.attempts).max() ?? 1
                let seconds = configuration.backoff.delay(afterFailures: attempts, retryAfter: error.serverError?.retryAfterDuration).timeInterval
                finish(batch, .retry(after: seconds, reason: error.description))
                lastRoundFailure.withLock { $0 = error.description }
                report.deferred += batch.count
                if error.isNetwork { network.reportFailure(error.description) }
                logger.warning("push failed; retrying in \(Int(seconds.rounded())) s: \(error)", metadata: [
                    "splashd_op": "push", "splashd_http_status": "\(error.serverError?.status ?? 0)",
                ])
                return false
            }
            // The server refused, or this machine cannot send an op. Split the batch to find the op
            // that cannot go; the rest go through.
            if batch.count > 1 {
                finish(batch, .retry(after: 0, reason: "splitting a refused batch"))
                // Each half goes as it was read: nothing is read twice.
                let half = batch.count / 2
                for range in [0..<half, half..<batch.count] {
                    let part = Array(batch[range])
                    guard (try? store.write({ db in try OutboxStore.markInFlight(db, part.compactMap(\.seq), now: Date()) })) != nil else { return false }
                    if !(await push(part, Array(ready[range]), pusher: pusher, accountId: accountId, report: &report)) { return false }
                }
                return true
            }
            let reason = error.serverError.map { "\($0.status) \($0.code ?? ""): \($0.message)" } ?? error.description
            reject(batch, reason: reason, status: error.serverError?.status)
            report.rejected += 1
            return true
        }
    }

    /// Refuses ops for good, with a reason a person can act on, unless a later op on the same entity
    /// already replaces them (then they are simply dropped: the later one decides).
    private func reject(_ ops: [OutboxEntry], reason: String, status: Int? = nil) {
        finish(ops, .reject(reason))
        let superseded = (try? store.write { db in try OutboxStore.dropSuperseded(db, accountId: ops[0].accountId) }) ?? 0
        if superseded > 0 {
            logger.info("a refused change was replaced by a later one and dropped: \(reason)", metadata: [
                "splashd_op": "push", "splashd_entity": "\(ops[0].entityId)",
            ])
            return
        }
        logger.error("a change cannot be sent; it is kept in the queue (splashctl queue --rejected): \(reason)", metadata: [
            "splashd_op": "push", "splashd_entity": "\(ops[0].entityId)", "splashd_http_status": "\(status ?? 0)",
        ])
    }

    private enum Outcome: Sendable {
        /// Sent: the ops leave the outbox, and the pusher records what the server now holds.
        case done(record: @Sendable (Database) throws -> Void)
        case retry(after: Double, reason: String)
        case reject(String)
    }

    private func finish(_ batch: [OutboxEntry], _ outcome: Outcome) {
        let seqs = batch.compactMap(\.seq)
        let now = Date()
        do {
            try store.write { db in
                switch outcome {
                case .done(let record):
                    try OutboxStore.complete(db, seqs)
                    try record(db)
                case .retry(let after, let reason): try OutboxStore.retryLater(db, seqs, at: now.addingTimeInterval(after), error: reason, now: now)
                case .reject(let reason): try OutboxStore.reject(db, seqs, reason: reason, now: now)
                }
            }
        } catch {
            // The ops stay in_flight and become pending again at the next start: resent, harmlessly.
            logger.error("cannot record a push outcome: \(error)", metadata: ["splashd_op": "push"])
        }
    }
}
