import Account
import Foundation
import Logging
import ServiceLifecycle
import Shared
import Store

/// Brings the server's changes down: on sign-in, when the network comes back, when asked
/// (`sync.now`), and on a schedule while signed in and online (default every 5 min, with jitter so
/// devices do not pull in step). Signed out or offline, it sleeps without a timer.
public final class PullEngine: Service, Sendable {
    private let store: Store
    private let session: SessionManager
    private let puller: LikesPuller
    private let editsPuller: EditsPuller
    private let network: NetworkGate
    private let interval: Duration
    private let logger: Logger
    private let changed: @Sendable ([PhotoChange]) -> Void
    private let synced: @Sendable () -> Void
    /// What else comes down with each pull (the profile: one row, the server's unless a change is queued).
    private let alsoPull: @Sendable (String) async -> Void
    private let wakeup = Wakeup()
    private let gate: SyncGate

    public init(
        store: Store, session: SessionManager, backend: SupabaseBackend, dataDirectory: String, network: NetworkGate,
        interval: Duration = .seconds(300),
        gate: SyncGate = SyncGate(), logger: Logger, synced: @escaping @Sendable () -> Void = {},
        alsoPull: @escaping @Sendable (String) async -> Void = { _ in },
        changed: @escaping @Sendable ([PhotoChange]) -> Void
    ) {
        self.gate = gate
        self.synced = synced
        self.alsoPull = alsoPull
        self.store = store
        self.session = session
        self.puller = LikesPuller(backend: backend, store: store)
        self.editsPuller = EditsPuller(backend: backend, store: store, dataDirectory: dataDirectory)
        self.network = network
        self.interval = interval
        self.logger = logger
        self.changed = changed
    }

    public func ring() {
        wakeup.ring()
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
                let seconds = Double(interval.components.seconds) * Double.random(in: 0.8...1.2)
                deadline = .now + .seconds(seconds)
            }
            await wakeup.wait(until: deadline)
        }
    }

    /// Pulls everything new now. Returns how many server rows were read, or nil if the pull failed.
    @discardableResult
    public func pull(accountId: String) async -> Int? {
        let started = ContinuousClock.now
        do throws(AccountFailure) {
            let applied = try await session.authorized { token throws(BackendError) in
                var applied = try await self.puller.pull(accountId: accountId, token: token, gate: self.gate)
                let edits = try await self.editsPuller.pull(accountId: accountId, token: token, gate: self.gate)
                applied.changes += edits.changes
                applied.rows += edits.rows
                return applied
            }
            if !applied.changes.isEmpty { changed(applied.changes) }
            await alsoPull(accountId)
            synced()
            if applied.rows > 0 {
                logger.info("pulled \(applied.rows) likes and edits, \(applied.changes.count) changed here", metadata: [
                    "splashd_op": "pull", "splashd_count": "\(applied.rows)",
                    "splashd_duration_ms": "\((ContinuousClock.now - started).components.seconds * 1000)",
                ])
            }
            return applied.rows
        } catch {
            if case .backend(let backendError) = error, backendError.isNetwork { network.reportFailure(backendError.description) }
            logger.warning("pull failed: \(error)", metadata: ["splashd_op": "pull"])
            return nil
        }
    }
}
