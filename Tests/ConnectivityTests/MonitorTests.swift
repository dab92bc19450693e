import Clocks
import Foundation
import HTTP
import Shared
import Synchronization
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

@testable import Connectivity

/// The monitor against a real HTTP server on 127.0.0.1 (real libcurl, real sockets).
@Suite struct ProbeTests {
    @Test func followsTheServerThroughDegradedOfflineAndBack() async throws {
        let server = try HealthServer()
        defer { server.stop() }
        let recorder = ChangeRecorder()
        try await withMonitor(testConfiguration(server.healthURL), recorder: recorder) { monitor in
            #expect(await eventually { monitor.current.state == .online })
            #expect(monitor.current.reason == "backend answers")

            try await server.setStatus(503)
            monitor.probeNow()
            #expect(await eventually { monitor.current.state == .degraded })
            #expect(monitor.current.reason == "backend answered 503")

            server.stop()
            // Degraded re-probes on its own (backoff 100..400 ms here) and finds nobody listening.
            #expect(await eventually { monitor.current.state == .offline })
            #expect(monitor.current.reason.hasPrefix("backend unreachable: "))

            try server.start()  // same port, answers 200 again
            #expect(await eventually { monitor.current.state == .online })
        }
        // A new reason within a state is a change too (StatusTracker): a slow machine's second probe
        // while offline may fail differently ("refused", then a timeout) and be reported. The states'
        // transitions and their `since`s (kept within a state) are what this test is about.
        let states = recorder.states
        let transitions = states.indices.filter { $0 == 0 || states[$0 - 1] != states[$0] }.map { states[$0] }
        #expect(transitions == [.online, .degraded, .offline, .online], "\(recorder.all)")
        let sinces = recorder.all.compactMap(\.since)
        #expect(Set(sinces).count == 4 && sinces == sinces.sorted())
    }

    @Test func onChangeOnlyOnChange() async throws {
        let server = try HealthServer()
        defer { server.stop() }
        let recorder = ChangeRecorder()
        try await withMonitor(testConfiguration(server.healthURL), recorder: recorder) { monitor in
            #expect(await eventually { monitor.current.state == .online })
            for _ in 0..<3 {
                let before = try await server.healthRequests()
                monitor.probeNow()
                #expect(await eventually { (try? await server.healthRequests()) ?? 0 > before })
            }
            // Several offline probes with the same reason: one change.
            server.stop()
            monitor.probeNow()
            #expect(await eventually { monitor.probeCount >= 8 })
        }
        #expect(recorder.states == [.online, .offline])
    }

    @Test func sendsTheAPIKeyAndCallsARefusedKeyDegraded() async throws {
        let server = try HealthServer(apiKey: "anon-key")
        defer { server.stop() }
        try await withMonitor(testConfiguration(server.healthURL) { $0.apiKey = "anon-key" }) { monitor in
            #expect(await eventually { monitor.current.state == .online })
        }
        try await withMonitor(testConfiguration(server.healthURL) { $0.apiKey = "wrong" }) { monitor in
            #expect(await eventually { monitor.current.state == .degraded })
            #expect(monitor.current.reason.contains("API key"))
        }
    }

    @Test func aFailedRequestTriggersAProbeWhileOnline() async throws {
        let server = try HealthServer()
        defer { server.stop() }
        let clock = TestClock<Duration>()
        try await withMonitor(testConfiguration(server.healthURL) { $0.minBackoff = .seconds(60) }, clock: clock) { monitor in
            #expect(await eventually { monitor.current.state == .online })
            server.stop()
            // An hour with the backend gone: nothing probes on its own while online, and no timer waits.
            await monitor.settled()
            #expect((try? await clock.checkSuspension()) != nil, "a timer is armed while online")
            await clock.advance(by: .seconds(3600))
            await monitor.settled()
            #expect(monitor.current.state == .online)
            #expect(monitor.probeCount == 1)

            // A failure elsewhere: a probe once the debounce has passed on the monitor's clock.
            monitor.reportNetworkFailure("Couldn't connect to server")
            #expect(await clock.hasSleeper())
            await clock.advance(by: .milliseconds(50))
            #expect(await eventually { monitor.current.state == .offline })
            // Online to offline takes a failed probe and a confirming one.
            #expect(monitor.probeCount == 3)
        }
    }

    /// Offline, the monitor asks again only when its backoff ends: a backend that is back is not
    /// known, and a waiter not woken, until the monitor's clock has passed it.
    @Test func waitUntilOnlineReturnsWhenTheBackendAnswers() async throws {
        let server = try HealthServer()
        let port = server.port
        server.stop()
        let clock = TestClock<Duration>()
        try await withMonitor(testConfiguration("http://127.0.0.1:\(port)/auth/v1/health"), clock: clock) { monitor in
            #expect(await eventually { monitor.current.state == .offline })
            let woken = Mutex(false)
            let waiter = Task {
                await monitor.waitUntilOnline()
                woken.withLock { $0 = true }
                return monitor.current.state
            }
            try server.start()
            defer { server.stop() }
            #expect(await clock.hasSleeper(), "the backoff's timer")
            await monitor.settled()
            #expect(monitor.probeCount == 1 && !woken.withLock { $0 }, "the backend answers, but nothing asked it yet")
            await clock.advance(by: .seconds(3600))
            #expect(await waiter.value == .online)
            #expect(monitor.probeCount == 2)
            await monitor.waitUntilOnline()  // already online: returns at once
        }
    }

    @Test func waitUntilOnlineIsCancellable() async throws {
        try await withMonitor(testConfiguration("http://127.0.0.1:9/auth/v1/health")) { monitor in
            let waiter = Task { await monitor.waitUntilOnline() }
            try await Task.sleep(for: .milliseconds(100))
            waiter.cancel()
            await waiter.value
            #expect(monitor.current.state != .online)
        }
    }

    @Test func noBackendConfigured() async throws {
        try await withMonitor(testConfiguration(nil)) { monitor in
            #expect(monitor.current.state == .offline)
            #expect(monitor.current.reason == "no backend configured")
            monitor.probeNow()
            await monitor.settled()
            #expect(monitor.probeCount == 0)
        }
    }

    @Test func aClockJumpReprobes() async throws {
        let server = try HealthServer()
        defer { server.stop() }
        try await withMonitor(testConfiguration(server.healthURL)) { monitor in
            #expect(await eventually { monitor.current.state == .online })
            let before = try await server.healthRequests()
            server.stop()
            monitor.inject(.clockChanged)
            #expect(await eventually { monitor.current.state == .offline })
            #expect(before == 1)
        }
    }
}

/// Idle means asleep: online and nothing changing, the monitor sends nothing and arms no timer; an hour
/// passes on its clock in an instant.
@Suite struct IdleTests {
    @Test func noProbingWhileOnlineAndNothingChanges() async throws {
        let clock = TestClock<Duration>()
        let server = try HealthServer()
        defer { server.stop() }
        // Netlink watched in a namespace of our own when we can (root), so nothing else on the machine can wake it.
        let namespace = getuid() == 0 ? try NetworkNamespace() : nil
        defer { namespace?.remove() }
        let configuration = testConfiguration(server.healthURL) {
            $0.watchNetlink = namespace != nil
            $0.netlinkNamespace = namespace?.path
        }
        try await withMonitor(configuration, clock: clock) { monitor in
            #expect(await eventually { monitor.current.state == .online })
            let before = try await server.healthRequests()
            await monitor.settled()
            #expect((try? await clock.checkSuspension()) != nil, "a timer is armed while idle")
            await clock.advance(by: .seconds(3600))
            await monitor.settled()
            #expect(try await server.healthRequests() == before)
            #expect(monitor.probeCount == 1)
        }
    }
}

/// Real rtnetlink: the monitor subscribes inside a network namespace the test creates, and the test changes a veth
/// pair in there. Backoff is long (60 s), so only a netlink change can explain a prompt re-probe.
@Suite(.enabled(if: getuid() == 0, "needs root for network namespaces"))
struct NetlinkTests {
    /// With no backend nothing is probed, but the other services still hear of network changes (a
    /// host marked down is asked again at once, not at the end of its backoff). The link is changed
    /// until one is heard: the subscription starts inside `run()`, after the monitor's task begins.
    @Test func withNoBackendNetworkChangesStillReachTheOtherServices() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.remove() }
        try namespace.ip("link", "add", "sdn0", "type", "veth", "peer", "name", "sdn1")
        let heard = Mutex(0)
        let configuration = testConfiguration(nil) {
            $0.watchNetlink = true
            $0.netlinkNamespace = namespace.path
        }
        try await withMonitor(configuration, networkChanged: { heard.withLock { $0 += 1 } }) { monitor in
            var up = false
            let told = try await eventually(within: .seconds(10), every: .milliseconds(100)) {
                up.toggle()
                try namespace.ip("link", "set", "sdn0", up ? "up" : "down")
                return heard.withLock { $0 } > 0
            }
            #expect(told, "a link change with no backend configured reached no service")
            #expect(monitor.probeCount == 0)
        }
    }

    @Test func linkChangesTriggerProbes() async throws {
        let server = try HealthServer()
        defer { server.stop() }
        let namespace = try NetworkNamespace()
        defer { namespace.remove() }
        try namespace.ip("link", "add", "sdc0", "type", "veth", "peer", "name", "sdc1")
        let configuration = testConfiguration(server.healthURL) {
            $0.watchNetlink = true
            $0.netlinkNamespace = namespace.path
            $0.debounce = .milliseconds(250)
            $0.minBackoff = .seconds(60)
            $0.maxBackoff = .seconds(60)
        }
        try await withMonitor(configuration) { monitor in
            #expect(await eventually { monitor.current.state == .online })
            try await Task.sleep(for: .milliseconds(300))
            #expect(monitor.probeCount == 1)

            server.stop()
            try namespace.ip("link", "set", "sdc0", "up")
            let started = ContinuousClock.now
            #expect(await eventually(within: .seconds(3)) { monitor.current.state == .offline })
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .milliseconds(200))  // debounced
            #expect(elapsed < .seconds(2))  // about 250 ms; generous for a loaded machine

            // Back: the backoff would wait 60 s; the link change makes it probe now.
            try server.start()
            try namespace.ip("link", "set", "sdc0", "down")
            #expect(await eventually(within: .seconds(3)) { monitor.current.state == .online })

            // An address and a route count too.
            server.stop()
            try namespace.ip("link", "set", "sdc0", "up")
            #expect(await eventually(within: .seconds(3)) { monitor.current.state == .offline })
            try server.start()
            try namespace.ip("addr", "add", "10.213.7.1/24", "dev", "sdc0")
            #expect(await eventually(within: .seconds(3)) { monitor.current.state == .online })

            // The same address with new lifetimes (what a router advertisement or a DHCP renewal does): the kernel
            // sends RTM_NEWADDR again, but nothing changed, so nothing is probed.
            let probes = monitor.probeCount
            try namespace.ip("addr", "change", "10.213.7.1/24", "dev", "sdc0", "valid_lft", "100", "preferred_lft", "100")
            try namespace.ip("addr", "change", "10.213.7.1/24", "dev", "sdc0", "valid_lft", "200", "preferred_lft", "200")
            try await Task.sleep(for: .milliseconds(600))
            #expect(monitor.probeCount == probes)
        }
    }

    /// The production path: the socket in the test process's own namespace, no setns. A veth pair with one end moved
    /// into the test's namespace and the other (ours, created here) in the default one. Other activity on the machine
    /// may add probes, never remove them, so the test asserts only what our own link change must cause.
    @Test func watchesTheDefaultNamespace() async throws {
        let server = try HealthServer()
        defer { server.stop() }
        let namespace = try NetworkNamespace()
        defer { namespace.remove() }
        let host = "sdc\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
        try NetworkNamespace.run(["link", "add", host, "type", "veth", "peer", "name", "sdcpeer", "netns", namespace.name])
        defer { try? NetworkNamespace.run(["link", "del", host]) }  // the peer goes with it
        let configuration = testConfiguration(server.healthURL) {
            $0.watchNetlink = true
            $0.debounce = .milliseconds(250)
            $0.minBackoff = .seconds(60)
            $0.maxBackoff = .seconds(60)
        }
        try await withMonitor(configuration) { monitor in
            #expect(await eventually { monitor.current.state == .online })
            server.stop()
            try NetworkNamespace.run(["link", "set", host, "up"])
            #expect(await eventually(within: .seconds(3)) { monitor.current.state == .offline })
            try server.start()
            try NetworkNamespace.run(["link", "set", host, "down"])
            #expect(await eventually(within: .seconds(3)) { monitor.current.state == .online })
        }
    }

    @Test func aBurstOfChangesIsOneProbe() async throws {
        let server = try HealthServer()
        defer { server.stop() }
        let namespace = try NetworkNamespace()
        defer { namespace.remove() }
        let configuration = testConfiguration(server.healthURL) {
            $0.watchNetlink = true
            $0.netlinkNamespace = namespace.path
            $0.debounce = .milliseconds(250)
        }
        try await withMonitor(configuration) { monitor in
            #expect(await eventually { monitor.current.state == .online })
            try await Task.sleep(for: .milliseconds(100))
            #expect(monitor.probeCount == 1)
            // Five changes in one burst: one probe, 250 ms after the last.
            try namespace.ipBatch([
                "link add sdc2 type veth peer name sdc3", "link set sdc2 up", "addr add 10.213.8.1/24 dev sdc2",
                "link set sdc2 down", "link del sdc2",
            ])
            #expect(await eventually(within: .seconds(3)) { monitor.probeCount >= 2 })
            try await Task.sleep(for: .milliseconds(500))
            #expect(monitor.probeCount == 2)
        }
    }
}
