import Control
@testable import Daemon
import Foundation
import Shared
import SplashClient
import Testing

@Suite(.serialized) struct SubscriptionTests {
    @Test func snapshotThenEventsInOrderWithGreaterSeq() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer()
            let client = try harness.client()
            harness.state.setOutbox(OutboxCounts(pending: 1, inFlight: 0, rejected: 0))
            let subscription = try await client.send(SubscribeRequest())
            #expect(subscription.snapshot.outbox.pending == 1)
            harness.state.setOutbox(OutboxCounts(pending: 2, inFlight: 0, rejected: 0))
            harness.state.setConnectivity(ConnectivityStatus(state: .offline, text: .backendUnreachable(detail: "link down")))
            let first = try #require(try await client.nextEvent())
            let second = try #require(try await client.nextEvent())
            #expect(first.event == .outboxChanged(OutboxCounts(pending: 2, inFlight: 0, rejected: 0)))
            #expect(second.event == .connectivityChanged(ConnectivityStatus(state: .offline, text: .backendUnreachable(detail: "link down"))))
            #expect(first.seq > subscription.seq && second.seq == first.seq + 1)
            await client.close()
        }
    }

    @Test func typeFilterAndUnsubscribe() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer()
            let daemonsOwn = harness.state.bus.subscriberCount  // the graph's own followers of the bus
            let client = try harness.client()
            let subscription = try await client.send(SubscribeRequest(types: [EventType.daemonReloaded.rawValue]))
            harness.state.setOutbox(OutboxCounts(pending: 5, inFlight: 0, rejected: 0))
            harness.state.bus.publish(.daemonReloaded)
            #expect(try await client.nextEvent()?.event == .daemonReloaded)
            #expect(try await client.send(UnsubscribeRequest(subscription: subscription.subscription)).unsubscribed)
            #expect(harness.state.bus.subscriberCount == daemonsOwn)
            await #expect(throws: RPCError.self) { try await client.send(UnsubscribeRequest(subscription: subscription.subscription)) }
            await client.close()
        }
    }

    @Test func closingTheConnectionEndsItsSubscriptions() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer()
            let daemonsOwn = harness.state.bus.subscriberCount
            let client = try harness.client()
            _ = try await client.send(SubscribeRequest())
            #expect(harness.state.bus.subscriberCount == daemonsOwn + 1)
            await client.close()
            let left = await eventually(every: .milliseconds(20)) { harness.state.bus.subscriberCount } until: { $0 == daemonsOwn }
            #expect(left == daemonsOwn)
        }
    }

    /// A subscriber that does not read: its queue stays bounded, the rest is counted, and once it reads
    /// again it is told exactly how many events it missed.
    @Test func aSlowSubscriberIsToldWhatItMissed() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer { $0.eventQueueCapacity = 8 }
            let client = try harness.client()
            _ = try await client.send(SubscribeRequest(types: [EventType.outboxChanged.rawValue]))
            let total = 20_000
            for n in 1...total { harness.state.setOutbox(OutboxCounts(pending: n, inFlight: 0, rejected: 0)) }
            var delivered = 0
            var missed = 0
            var lastPending = 0
            while delivered + missed < total, let note = try await client.nextEvent() {
                switch note.event {
                case .outboxChanged(let counts):
                    delivered += 1
                    #expect(counts.pending > lastPending, "events stay in order")
                    lastPending = counts.pending
                case .eventsMissed(let count): missed += count
                default: Issue.record("unexpected \(note.event)")
                }
            }
            #expect(missed > 0, "20,000 events cannot all fit a queue of 8 while nobody reads")
            #expect(delivered + missed == total)
            await client.close()
        }
    }

    /// Snapshot and subscription are atomic: whatever interleaving, the snapshot plus the events after
    /// it account for every change exactly (never a gap).
    @Test func noChangeFallsBetweenSnapshotAndEvents() async throws {
        let bus = EventBus()
        let state = DaemonState(bus: bus, directories: DaemonStatus.example.directories)
        let writer = Task {
            for n in 1...5000 { state.setOutbox(OutboxCounts(pending: n, inFlight: 0, rejected: 0)) }
        }
        try await Task.sleep(for: .milliseconds(1))
        let seen = SeenEvents()
        let subscription = bus.subscribe(types: nil, snapshot: { state.status() }) { seen.append($0) }
        await writer.value
        let events = seen.all.compactMap { note -> Int? in
            if case .outboxChanged(let counts) = note.event { return counts.pending }
            return nil
        }
        let start = subscription.snapshot.outbox.pending
        let expected = start < 5000 ? Array((start + 1)...5000) : []
        #expect(events == expected, "snapshot at \(start), then \(events.count) events")
    }
}

final class SeenEvents: Sendable {
    private let storage = Mutex<[EventNotification]>([])
    func append(_ note: EventNotification) { storage.withLock { $0.append(note) } }
    var all: [EventNotification] { storage.withLock { $0 } }
}

import Synchronization
import TestSupport
