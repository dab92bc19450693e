import Foundation
import Store
import Support

/// What `sync.now` does: send everything queued now (backoff or not), then pull, and — when asked to
/// wait — say how it ended within the time given, whatever the network does.
///
/// It never drives a request itself: the push and pull engines do the work, and this only waits on
/// their progress signals and the network's changes, with a deadline. A drain stuck in a slow request, or behind the sync
/// gate, cannot hold the answer past its timeout.
public struct SyncService: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// Nothing left to send and a pull that started after the last push has ended.
        case drained
        /// Nothing left to send that the server will take; some changes were refused.
        case rejected
        /// The account server cannot be reached (the connectivity monitor has said so for `offlineGrace`).
        case offline(String)
        /// The deadline came first; the reason is what the last attempt met.
        case timedOut(String)
    }

    public struct Report: Sendable, Equatable {
        public var outcome: Outcome
        /// Ops that left the queue while waiting (sent, or replaced by later ones).
        public var pushed: Int
        public var left: OutboxStore.Left
    }

    let store: Store
    let push: PushEngine
    let pull: PullEngine?
    let network: NetworkGate
    /// How long the monitor must say "offline" before waiting stops early: a probe asked for at the
    /// start (3 s, confirmed once) has had its say by then.
    let offlineGrace: Duration

    public init(store: Store, push: PushEngine, pull: PullEngine?, network: NetworkGate, offlineGrace: Duration = .seconds(8)) {
        self.store = store
        self.push = push
        self.pull = pull
        self.network = network
        self.offlineGrace = offlineGrace
    }

    /// Starts a push of everything queued and a pull, and returns at once.
    public func start(accountId: String) {
        network.probeNow()
        push.sendNow(accountId: accountId)
        _ = pull?.requestPull()
    }

    /// Sends, pulls, and waits until everything agrees or `timeout` passes.
    public func syncAndWait(accountId: String, timeout: Duration) async -> Report {
        let deadline = ContinuousClock.now + timeout
        network.probeNow()
        push.sendNow(accountId: accountId)
        let initial = left(accountId)
        var offline = OfflineClock(grace: offlineGrace)
        var report: Report {
            let now = left(accountId)
            return Report(outcome: .drained, pushed: max(0, initial.toSend - now.toSend - max(0, now.rejected - initial.rejected)), left: now)
        }
        func ending(_ outcome: Outcome) -> Report {
            var ended = report
            ended.outcome = outcome
            return ended
        }

        while true {
            // Push: until nothing is left to send.
            while true {
                let seen = push.progressed.generation
                let networkSeen = network.changed.generation
                let now = left(accountId)
                if now.toSend == 0 { break }
                if offline.expired(online: network.isOnline()) {
                    return ending(.offline(push.lastFailure ?? now.lastError ?? "the account server does not answer"))
                }
                if ContinuousClock.now >= deadline {
                    return ending(.timedOut(push.lastFailure ?? now.lastError ?? "\(now.toSend) changes were still being sent"))
                }
                await news(from: push.progressed, beyond: seen, network: networkSeen, until: offline.wakeAt(deadline))
            }
            // Pull: one that started after the push ended, so the server's state is here too.
            guard let pull else { break }
            var ticket = pull.requestPull()
            var pulled = false
            while !pulled {
                let seen = pull.progressed.generation
                let networkSeen = network.changed.generation
                let (ended, failure) = pull.ended(after: ticket)
                if ended && failure == nil {
                    pulled = true
                    break
                }
                if offline.expired(online: network.isOnline()) {
                    return ending(.offline(failure ?? "the account server does not answer"))
                }
                if ContinuousClock.now >= deadline {
                    return ending(.timedOut(failure.map { "the pull failed: \($0)" } ?? "the pull had not finished"))
                }
                if ended {
                    // A failed pull is asked for again, a second later, until the deadline.
                    try? await Task.sleep(until: min(deadline, .now + .seconds(1)), clock: .continuous)
                    ticket = pull.requestPull()
                    continue
                }
                await news(from: pull.progressed, beyond: seen, network: networkSeen, until: offline.wakeAt(deadline))
            }
            // Changes queued while pulling go out too, before the answer says "drained".
            if left(accountId).toSend == 0 { break }
        }
        return ending(left(accountId).rejected > 0 ? .rejected : .drained)
    }

    /// Returns when the engine moved past `seen`, the network may have changed (past `networkSeen`), or
    /// at the deadline: whatever can change the answer wakes the wait, and nothing else.
    private func news(from engine: ChangeSignal, beyond seen: UInt64, network networkSeen: UInt64, until deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await engine.wait(beyond: seen, until: deadline) }
            group.addTask { await network.changed.wait(beyond: networkSeen, until: deadline) }
            await group.next()
            group.cancelAll()
        }
    }

    private func left(_ accountId: String) -> OutboxStore.Left {
        (try? store.read { db in try OutboxStore.left(db, accountId: accountId) }) ?? OutboxStore.Left()
    }

    /// Counts how long the network has been seen offline without a break.
    struct OfflineClock {
        let grace: Duration
        var since: ContinuousClock.Instant?

        mutating func expired(online: Bool) -> Bool {
            if online {
                since = nil
                return false
            }
            let now = ContinuousClock.now
            if since == nil { since = now }
            return now - since! >= grace
        }

        /// When to look again at the latest: the deadline, or sooner when the grace of an outage seen
        /// would run out before it.
        func wakeAt(_ deadline: ContinuousClock.Instant) -> ContinuousClock.Instant {
            since.map { min(deadline, $0 + grace) } ?? deadline
        }
    }
}
