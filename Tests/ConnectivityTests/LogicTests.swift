import Foundation
import HTTP
import Shared
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import Connectivity
import Support

@Suite struct ClassificationTests {
    func verdict(_ outcome: ProbeOutcome) -> ProbeVerdict? { ProbeVerdict.classify(outcome, timeout: .seconds(3)) }

    @Test func successIsOnline() {
        #expect(verdict(.answered(status: 200)) == ProbeVerdict(.online, .backendAnswers))
        #expect(verdict(.answered(status: 204))?.state == .online)
    }

    @Test func serverErrorsAreDegraded() {
        #expect(verdict(.answered(status: 503)) == ProbeVerdict(.degraded, .backendAnsweredStatus(status: 503)))
        #expect(verdict(.answered(status: 500))?.state == .degraded)
        #expect(verdict(.answered(status: 404)) == ProbeVerdict(.degraded, .backendAnsweredStatus(status: 404)))
        #expect(verdict(.answered(status: 429))?.state == .degraded)
        #expect(verdict(.answered(status: 302))?.state == .degraded)
    }

    @Test func refusedKeyIsDegradedAndSaysSo() throws {
        let v = try #require(verdict(.answered(status: 401)))
        #expect(v.state == .degraded)
        #expect(v.reason.contains("API key"))
        #expect(verdict(.answered(status: 403))?.state == .degraded)
    }

    @Test func noAnswerIsOffline() {
        let refused = verdict(.failed(.network(curlCode: 7, message: "Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server")))
        #expect(refused == ProbeVerdict(.offline, .backendUnreachable(detail: "Failed to connect to 127.0.0.1 port 9: Couldn't connect to server")))
        // The same failure with another timing gives the same reason, so no change is reported.
        let again = verdict(.failed(.network(curlCode: 7, message: "Failed to connect to 127.0.0.1 port 9 after 12 ms: Couldn't connect to server")))
        #expect(again == refused)
        #expect(verdict(.failed(.network(curlCode: 6, message: "Could not resolve host: example.invalid")))?.reason == "backend unreachable: Could not resolve host: example.invalid")
        #expect(verdict(.failed(.timeout)) == ProbeVerdict(.offline, .backendSilent(seconds: 3)))
        #expect(verdict(.failed(.timeout))?.reason == "backend did not answer within 3 s")
        #expect(ProbeVerdict.classify(.failed(.timeout), timeout: .milliseconds(2500))?.reason == "backend did not answer within 2.5 s")
        #expect(verdict(.failed(.tls(curlCode: 60, message: "SSL certificate problem")))?.state == .offline)
        #expect(verdict(.failed(.insecureURL(host: "example.com")))?.state == .offline)
    }

    @Test func cancellationSaysNothing() {
        #expect(verdict(.failed(.cancelled)) == nil)
        #expect(verdict(.failed(.shutdown)) == nil)
    }
}

@Suite struct StatusTrackerTests {
    @Test func reportsOnlyChanges() {
        var tracker = StatusTracker(ConnectivityStatus(state: .unknown, text: .notProbedYet))
        let t0 = Date(timeIntervalSince1970: 1000)
        let online = tracker.apply(ProbeVerdict(.online, .backendAnswers), at: t0)
        #expect(online == ConnectivityStatus(state: .online, text: .backendAnswers, since: t0))
        #expect(tracker.apply(ProbeVerdict(.online, .backendAnswers), at: t0 + 5) == nil)
        let offline = tracker.apply(ProbeVerdict(.offline, .backendUnreachable(detail: "a")), at: t0 + 10)
        #expect(offline?.since == t0 + 10)
        // Same state, another reason: reported, but `since` keeps when the state began.
        let other = tracker.apply(ProbeVerdict(.offline, .backendUnreachable(detail: "b")), at: t0 + 20)
        #expect(other?.reason == "backend unreachable: b")
        #expect(other?.since == t0 + 10)
        #expect(tracker.apply(ProbeVerdict(.offline, .backendUnreachable(detail: "b")), at: t0 + 30) == nil)
        #expect(tracker.status == other)
    }
}

@Suite struct ProbeScheduleTests {
    let start = ContinuousClock.now
    func at(_ ms: Int) -> ContinuousClock.Instant { start + .milliseconds(ms) }
    func schedule() -> ProbeSchedule<ContinuousClock.Instant> {
        ProbeSchedule(debounce: .milliseconds(250), backoff: Backoff(minimum: .seconds(1), maximum: .seconds(300), jitter: 0))
    }

    @Test func onlineMeansNothingIsDue() {
        var s = schedule()
        s.probeRequested(at: at(0))
        #expect(s.isDue(at: at(0)))
        s.probeStarted()
        var g = SystemRandomNumberGenerator()
        s.probeFinished(at: at(10), state: .online, using: &g)
        #expect(s.deadline == nil)
    }

    @Test func offlineReprobesWithGrowingBackoff() {
        var s = schedule()
        var g = SystemRandomNumberGenerator()
        var now = 0
        var delays: [Duration] = []
        for _ in 0..<4 {
            s.probeStarted()
            s.probeFinished(at: at(now), state: .offline, using: &g)
            delays.append(s.deadline! - at(now))
            now += 100_000
        }
        #expect(delays == [1, 2, 4, 8].map { Duration.seconds($0) })
    }

    @Test func networkChangeIsDebouncedAndResetsBackoff() {
        var s = schedule()
        var g = SystemRandomNumberGenerator()
        for _ in 0..<5 { s.probeStarted(); s.probeFinished(at: at(0), state: .offline, using: &g) }
        #expect(s.deadline == at(16_000))
        s.networkChanged(at: at(1000))
        #expect(s.deadline == at(1250))
        s.networkChanged(at: at(1100))  // trailing edge: the burst goes on
        #expect(s.deadline == at(1350))
        #expect(!s.isDue(at: at(1300)))
        #expect(s.isDue(at: at(1350)))
        s.probeStarted()
        s.probeFinished(at: at(1400), state: .offline, using: &g)
        #expect(s.deadline == at(2400))  // backoff started over at 1 s
    }

    @Test func changeStormCannotStarveProbing() {
        var s = schedule()
        for ms in stride(from: 0, through: 3000, by: 100) { s.networkChanged(at: at(ms)) }
        #expect(s.deadline == at(1000))  // 4 × debounce after the first change of the burst
    }

    @Test func failedRequestProbesOnlyWhenBelievedOnline() {
        var s = schedule()
        s.requestFailed(at: at(0), state: .online)
        #expect(s.deadline == at(250))
        s.requestFailed(at: at(100), state: .online)  // coalesced
        #expect(s.deadline == at(250))

        var g = SystemRandomNumberGenerator()
        var offline = schedule()
        offline.probeStarted()
        offline.probeFinished(at: at(0), state: .offline, using: &g)
        offline.requestFailed(at: at(10), state: .offline)
        #expect(offline.deadline == at(1000))  // the backoff stands
    }

    @Test func probeNowIsImmediateAndResetsBackoff() {
        var s = schedule()
        var g = SystemRandomNumberGenerator()
        for _ in 0..<3 { s.probeStarted(); s.probeFinished(at: at(0), state: .degraded, using: &g) }
        s.probeRequested(at: at(50))
        #expect(s.isDue(at: at(50)))
        s.probeStarted()
        s.probeFinished(at: at(60), state: .degraded, using: &g)
        #expect(s.deadline == at(1060))
    }
}

@Suite struct SuspendDetectorTests {
    @Test func boottimeRunningAheadOfMonotonicMeansSuspend() {
        var d = SuspendDetector(boottime: .seconds(100), monotonic: .seconds(90))
        #expect(d.check(boottime: .seconds(110), monotonic: .seconds(100)) == nil)  // awake: both advance alike
        #expect(d.check(boottime: .seconds(400), monotonic: .seconds(101)) == .seconds(289))  // slept ~289 s
        #expect(d.check(boottime: .seconds(401), monotonic: .seconds(102)) == nil)
    }

    @Test func realClocksShowNoSuspend() {
        var d = SuspendDetector()
        #expect(d.check() == nil)
    }
}

/// Builds rtnetlink datagrams the way the kernel lays them out (native byte order, 4-byte alignment).
enum NL {
    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
    static func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4) }
    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] { padded(le(UInt16(4 + value.count)) + le(type) + value) }
    static func message(_ type: UInt16, _ payload: [UInt8]) -> [UInt8] {
        padded(le(UInt32(16 + payload.count)) + le(type) + le(UInt16(0)) + le(UInt32(1)) + le(UInt32(0)) + payload)
    }
    static func link(_ type: UInt16 = 16, index: Int32, flags: UInt32) -> [UInt8] {
        message(type, [0, 0] + le(UInt16(1)) + le(index) + le(flags) + le(UInt32(0xFFFF_FFFF)))
    }
    static func address(_ type: UInt16 = 20, index: UInt32, _ ip: [UInt8], prefix: UInt8 = 24, flags: UInt8 = 0, lifetime: UInt32 = 100) -> [UInt8] {
        // IFA_CACHEINFO (6) carries the lifetimes that a router advertisement refreshes.
        message(type, [2, prefix, flags, 0] + le(index) + attribute(1, ip) + attribute(2, ip) + attribute(6, le(lifetime) + le(lifetime) + le(UInt64(0))))
    }
    static func route(_ type: UInt16 = 24, gateway: [UInt8], oif: UInt32, expires: UInt32 = 0) -> [UInt8] {
        message(type, [2, 0, 0, 0, 254, 3, 0, 1] + le(UInt32(0)) + attribute(15, le(UInt32(254))) + attribute(5, gateway) + attribute(4, le(oif)) + attribute(12, le(expires)))
    }
}

@Suite struct NetlinkFilterTests {
    func changes(_ filter: inout NetlinkFilter, _ messages: [UInt8]...) -> [String] {
        let datagram = messages.flatMap { $0 }
        return datagram.withUnsafeBytes { filter.changes(in: $0) }
    }

    @Test func newThingsAreChangesRepeatsAreNot() {
        var f = NetlinkFilter()
        let up = NetlinkFilter.IFF_UP | NetlinkFilter.IFF_RUNNING | NetlinkFilter.IFF_LOWER_UP
        #expect(changes(&f, NL.link(index: 3, flags: up), NL.address(index: 3, [10, 0, 0, 5])) == ["newlink", "newaddr"])
        // A wireless scan event (same flags) and a lifetime refresh (same address, new lifetimes): nothing new.
        #expect(changes(&f, NL.link(index: 3, flags: up | 0x1000)).isEmpty)
        #expect(changes(&f, NL.address(index: 3, [10, 0, 0, 5], lifetime: 3600)).isEmpty)
        // Carrier lost: a change.
        #expect(changes(&f, NL.link(index: 3, flags: NetlinkFilter.IFF_UP)) == ["newlink"])
        // Another address, another prefix length, an address that finished DAD: changes.
        #expect(changes(&f, NL.address(index: 3, [10, 0, 0, 6])) == ["newaddr"])
        #expect(changes(&f, NL.address(index: 3, [10, 0, 0, 5], prefix: 16)) == ["newaddr"])
        #expect(changes(&f, NL.address(index: 4, [10, 0, 0, 7], flags: 0x40)) == ["newaddr"])
        #expect(changes(&f, NL.address(index: 4, [10, 0, 0, 7], flags: 0x80)) == ["newaddr"])
        // Deletions always count, and a re-add after a deletion is new again.
        #expect(changes(&f, NL.address(21, index: 3, [10, 0, 0, 5])) == ["deladdr"])
        #expect(changes(&f, NL.address(index: 3, [10, 0, 0, 5])) == ["newaddr"])
        #expect(changes(&f, NL.link(17, index: 3, flags: 0)) == ["dellink"])
    }

    @Test func routeRefreshIsNotAChange() {
        var f = NetlinkFilter()
        #expect(changes(&f, NL.route(gateway: [10, 0, 0, 1], oif: 3, expires: 1800)) == ["newroute"])
        #expect(changes(&f, NL.route(gateway: [10, 0, 0, 1], oif: 3, expires: 1790)).isEmpty)
        #expect(changes(&f, NL.route(gateway: [10, 0, 0, 254], oif: 3)) == ["newroute"])
        #expect(changes(&f, NL.route(25, gateway: [10, 0, 0, 1], oif: 3)) == ["delroute"])
    }

    @Test func overrunAndGarbageCount() {
        var f = NetlinkFilter()
        _ = changes(&f, NL.address(index: 3, [10, 0, 0, 5]))
        f.overrun()
        #expect(changes(&f, NL.address(index: 3, [10, 0, 0, 5])) == ["newaddr"])
        var truncated = NL.address(index: 3, [10, 0, 0, 9])
        truncated.removeLast(8)
        #expect(changes(&f, truncated) == ["malformed"])
        #expect(changes(&f, NL.message(99, [1, 2, 3, 4])) == ["type 99"])
    }
}

@Suite struct ClockTimerTests {
    /// The kernel accepts the far-future CANCEL_ON_SET timer, and without a clock change there is nothing to read.
    @Test func armsAndStaysQuiet() throws {
        let timer = try ClockChangeTimer()
        var fds = [pollfd(fd: timer.fd.raw, events: Int16(POLLIN), revents: 0)]
        #expect(poll(&fds, 1, 50) == 0)
        #expect(timer.consume() == false)
    }
}
