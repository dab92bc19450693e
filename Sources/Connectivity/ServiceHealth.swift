import Foundation
import Shared
import Support
import Synchronization

/// Whether each service answers — Unsplash's API, NASA's, each image host — so that each feature waits
/// only for what it needs: a CDN that answers keeps downloading while the backend is down, and no
/// backend at all stops nothing but accounts and sync.
///
/// Learnt from the services' own answers: a request that fails to reach a service marks it down, one
/// that gets an answer (any HTTP status) marks it up. A service down is tried again after a backoff
/// (15 s, doubling to 5 min), at once after a network change.
public final class ServiceHealth: Sendable {
    static let backoff: [Duration] = [.seconds(15), .seconds(30), .seconds(60), .seconds(120), .seconds(300)]

    private struct Entry {
        var state: ServiceReachability.State
        var reason: String?
        var since: Date
        var failures = 0
        var retryAt: ContinuousClock.Instant?
        var retryDate: Date?

        func reachability(_ service: String) -> ServiceReachability {
            ServiceReachability(service: service, state: state, reason: reason, since: since, retryAt: state == .down ? retryDate : nil)
        }
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let changed: @Sendable ([ServiceReachability]) -> Void

    /// `changed` hears the whole list whenever a service goes up or down.
    public init(changed: @escaping @Sendable ([ServiceReachability]) -> Void = { _ in }) {
        self.changed = changed
    }

    /// The service answered.
    public func succeeded(_ service: String) {
        update { entries in
            if let entry = entries[service], entry.state == .up { return false }
            entries[service] = Entry(state: .up, since: Date())
            return true
        }
    }

    /// A request could not reach the service (or it failed as a whole: 5xx, nonsense).
    public func failed(_ service: String, reason: String) {
        update { entries in
            var entry = entries[service] ?? Entry(state: .down, since: Date())
            let news = entry.state != .down || entry.reason != reason
            if entry.state != .down { entry = Entry(state: .down, since: Date()) }
            entry.reason = reason
            entry.failures += 1
            let delay = Self.backoff[min(entry.failures, Self.backoff.count) - 1]
            entry.retryAt = .now + delay
            entry.retryDate = Date().addingTimeInterval(delay.timeInterval)
            entries[service] = entry
            return news
        }
    }

    /// Whether a request to the service should be made now: not known down, or its retry is due.
    public func usable(_ service: String) -> Bool {
        entries.withLock { entries in
            guard let entry = entries[service], entry.state == .down, let retryAt = entry.retryAt else { return true }
            return retryAt <= .now
        }
    }

    /// Why the service is down and when it is tried again; nil when it is usable.
    public func downReason(_ service: String) -> ServiceReachability? {
        guard !usable(service) else { return nil }
        return entries.withLock { $0[service]?.reachability(service) }
    }

    /// The network changed (a route came or went): every service down is worth a try at once.
    public func networkChanged() {
        entries.withLock { entries in
            for (service, entry) in entries where entry.state == .down {
                entries[service]?.retryAt = .now
                entries[service]?.retryDate = Date()
            }
        }
    }

    /// Every service heard from, by name.
    public var snapshot: [ServiceReachability] {
        entries.withLock { entries in entries.map { $0.value.reachability($0.key) }.sorted { $0.service < $1.service } }
    }

    private func update(_ change: (inout [String: Entry]) -> Bool) {
        let list: [ServiceReachability]? = entries.withLock { entries in
            guard change(&entries) else { return nil }
            return entries.map { $0.value.reachability($0.key) }.sorted { $0.service < $1.service }
        }
        if let list { changed(list) }
    }
}
