import Account
import Foundation
import Logging
import ServiceLifecycle
import Shared
import Store
import Supabase
import Support
import Synchronization

/// Brings the server's changes down: on sign-in, when the network comes back, when asked
/// (`sync.now`), and on a schedule while signed in and online (default every 5 min, with jitter so
/// devices do not pull in step). Signed out or offline, it sleeps without a timer.
public final class PullEngine: Service, Sendable {
    private let store: Store
    private let session: SessionManager
    private let puller: LikesPuller
    private let editsPuller: EditsPuller
    private let photosPuller: PhotosPuller
    private let originals: OriginalsDownloader
    private let network: NetworkGate
    /// The time between timed pulls, asked anew after each pull (longer while the live channel brings
    /// changes as they happen: the timed pull is then only a safety net).
    private let interval: @Sendable () -> Duration
    private let logger: Logger
    private let changed: @Sendable ([PhotoChange]) -> Void
    private let synced: @Sendable () -> Void
    /// What else comes down with each pull (the profile: one row, the server's unless a change is queued).
    private let alsoPull: @Sendable (String) async -> Void
    private let wakeup = Wakeup()
    private let gate: SyncGate
    /// Moves whenever a pull ends; with `ticket()` and `ended(after:)`, `SyncService` learns that a
    /// pull which started after its push has ended, and how.
    public let progressed = ChangeSignal()
    private let record = Mutex(Record())

    private struct Record {
        var started: UInt64 = 0
        /// The number of the last pull that ended, and its failure if it failed.
        var ended: UInt64 = 0
        var failure: String?
    }

    public init(
        store: Store, session: SessionManager, backend: SupabaseBackend, dataDirectory: String, network: NetworkGate,
        interval: @escaping @Sendable () -> Duration = { .seconds(300) },
        gate: SyncGate = SyncGate(), logger: Logger, synced: @escaping @Sendable () -> Void = {},
        alsoPull: @escaping @Sendable (String) async -> Void = { _ in },
        changed: @escaping @Sendable ([PhotoChange]) -> Void
    ) {
        self.gate = gate
        self.synced = synced
        self.alsoPull = alsoPull
        self.store = store
        self.session = session
        self.puller = LikesPuller(backend: backend, store: store, logger: logger)
        self.editsPuller = EditsPuller(backend: backend, store: store, dataDirectory: dataDirectory)
        self.photosPuller = PhotosPuller(backend: backend, store: store)
        self.originals = OriginalsDownloader(backend: backend, store: store, dataDirectory: dataDirectory)
        self.network = network
        self.interval = interval
        self.logger = logger
        self.changed = changed
    }

    public func ring() {
        wakeup.ring()
    }

    /// Asks for a pull now. Returns a ticket: a pull numbered above it started after this call.
    public func requestPull() -> UInt64 {
        let ticket = record.withLock { $0.started }
        ring()
        return ticket
    }

    /// Whether a pull that started after `ticket` has ended, and its failure if it failed.
    public func ended(after ticket: UInt64) -> (ended: Bool, failure: String?) {
        record.withLock { record in (record.ended > ticket, record.ended > ticket ? record.failure : nil) }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.loop() }
    }

    private func loop() async {
        while !Task.isCancelled {
            var deadline: ContinuousClock.Instant?
            let status = await session.status
            if status.state != .signedOut, let account = status.userId, network.isOnline() {
                _ = await pull(accountId: account)
                deadline = .now + interval() * Double.random(in: 0.8...1.2)
            }
            await wakeup.wait(until: deadline)
        }
    }

    /// Pulls everything new now. Returns how many server rows were read, or nil if the pull failed.
    @discardableResult
    public func pull(accountId: String) async -> Int? {
        let started = ContinuousClock.now
        let number = record.withLock { record -> UInt64 in
            record.started += 1
            return record.started
        }
        var failure: String?
        defer {
            record.withLock { record in
                if number > record.ended {
                    record.ended = number
                    record.failure = failure
                }
            }
            progressed.signal()
        }
        do throws(AccountFailure) {
            // This device's own writes come back as the push's answer: the pull passes over them.
            let device = store.deviceId
            let applied = try await session.authorized { token throws(BackendError) in
                let newest = try await self.puller.pullNewest(accountId: accountId, token: token, gate: self.gate)
                if !newest.changes.isEmpty { self.changed(newest.changes) }
                var applied = try await self.puller.pull(accountId: accountId, device: device, token: token, gate: self.gate)
                applied += try await self.editsPuller.pull(accountId: accountId, token: token, gate: self.gate)
                // The photos the rows named, before anyone is told of them: a liked photo's download needs its URLs.
                try await self.photosPuller.pull(accountId: accountId, device: device, token: token, named: applied.photoIds, gate: self.gate)
                // Local photos imported on another device: their originals, from the account's Storage;
                // whole files, so not on a metered network (the first pull after it brings them).
                if self.network.allowsBulk() {
                    applied.changes += try await self.originals.downloadMissing(accountId: accountId, token: token)
                }
                return applied
            }
            if !applied.changes.isEmpty { changed(applied.changes) }
            await alsoPull(accountId)
            synced()
            if applied.rows > 0 {
                logger.info("pulled \(applied.rows) likes and edits, \(applied.changes.count) changed here", metadata: [
                    "splashd_op": "pull", "splashd_count": "\(applied.rows)",
                    "splashd_duration_ms": "\(started.millisecondsElapsed)",
                ])
            }
            return applied.rows
        } catch {
            if case .backend(let backendError) = error, backendError.isNetwork { network.reportFailure(backendError.description) }
            logger.warning("pull failed: \(error)", metadata: ["splashd_op": "pull"])
            failure = error.description
            return nil
        }
    }
}
