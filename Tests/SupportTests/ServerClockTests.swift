import Foundation
import Support
import Synchronization
import Testing

/// The estimate of the server's clock from the `Date` of its answers (whole seconds): bounds that
/// intersect, answers at a second's edges that narrow it, a wall clock that is off or stepped that
/// changes nothing, and a server clock that moved that replaces what was known.
@Suite struct ServerClockTests {
    /// A device whose boot clock and wall clock the test moves by hand, and a server whose clock is
    /// `serverOffset` seconds past the boot clock.
    final class Knob: Sendable {
        private let value: Mutex<Double>
        init(_ value: Double) { self.value = Mutex(value) }
        func withLock<T>(_ body: (inout Double) -> T) -> T { value.withLock { body(&$0) } }
    }

    /// What the clock handed on to be kept, in order.
    final class Kept: Sendable {
        private let saved = Mutex<[ServerClock.Saved]>([])
        func append(_ value: ServerClock.Saved) { saved.withLock { $0.append(value) } }
        var all: [ServerClock.Saved] { saved.withLock { $0 } }
    }

    final class World: Sendable {
        let boot = Knob(1000)
        let wallSkew = Knob(0)
        let serverOffset: Double
        let kept = Kept()
        let clock: ServerClock

        init(serverOffset: Double = 1_795_000_000.123_456, bootId: String = "boot-1") {
            self.serverOffset = serverOffset
            let boot = self.boot
            let wallSkew = self.wallSkew
            let kept = self.kept
            clock = ServerClock(
                device: DeviceClock(
                    wall: { Date(timeIntervalSince1970: boot.withLock { $0 } + serverOffset + wallSkew.withLock { $0 }) },
                    boot: { boot.withLock { $0 } }, bootId: bootId),
                persist: { kept.append($0) })
        }

        /// A request sent now, answered after `roundTrip`, the server reading its clock half way.
        func answer(roundTrip: Double = 0.002) {
            let sent = boot.withLock { $0 }
            let serverSecond = Int64((sent + roundTrip / 2 + serverOffset).rounded(.down))
            boot.withLock { $0 += roundTrip }
            clock.observe(serverSecond: serverSecond, sentAt: sent, receivedAt: sent + roundTrip)
        }

        func wait(_ seconds: Double) { boot.withLock { $0 += seconds } }

        /// How far the estimate's now is from the server's.
        var error: Double { clock.now().timeIntervalSince1970 - (boot.withLock { $0 } + serverOffset) }
    }

    @Test func oneAnswerKnowsTheServersTimeToASecond() throws {
        let world = World()
        #expect(world.clock.estimate == nil)
        world.answer()
        let estimate = try #require(world.clock.estimate)
        #expect(estimate.uncertainty <= 0.502)
        #expect(abs(world.error) <= estimate.uncertainty + 1e-9)
    }

    /// Answers at different points of a second narrow the estimate; the truth stays within it.
    /// One answer allows half a second either way; a wall clock in step within it is taken as it is,
    /// so stamps made just after a start are as right as the device's clock.
    @Test func aWallClockWithinTheBoundsIsTheServersTime() throws {
        let world = World()
        world.answer()
        #expect(try #require(world.clock.estimate).uncertainty > 0.1)
        #expect(abs(world.error) < 1e-6)
        world.wallSkew.withLock { $0 = 0.3 }
        #expect(abs(world.error - 0.3) < 1e-6, "0.3 s off, still within what one answer allows")
    }

    /// A wall clock set back, within the bounds, does not give an earlier time than one given before:
    /// a person's later action never stamps before their earlier one.
    @Test func aWallClockSetBackNeverMakesTimeGoBack() throws {
        let world = World()
        world.answer()
        world.wallSkew.withLock { $0 = 0.5 }
        let before = world.clock.now()
        #expect(abs(world.error - 0.5) < 1e-6)
        world.wallSkew.withLock { $0 = -0.1 }
        world.wait(0.1)
        #expect(world.clock.now() == before, "set back 0.6 s after 0.1 s: the time given before stands")
        world.wait(0.7)
        #expect(abs(world.error + 0.1) < 1e-6, "once past it, the wall clock's time again")
    }

    @Test func answersAtManyPointsOfASecondNarrowIt() throws {
        let world = World()
        for step in 0..<200 {
            world.answer()
            world.wait(0.0137 * Double(step % 7 + 1))
            let estimate = try #require(world.clock.estimate)
            #expect(abs(world.error) <= estimate.uncertainty + 1e-9, "step \(step): \(estimate)")
        }
        #expect(try #require(world.clock.estimate).uncertainty < 0.02)
    }

    /// What the keeper does: ask when the server's clock should be at a second's edge if the offset
    /// were the middle of what is known; a dozen answers bring a second down to a few milliseconds.
    @Test func answersAtTheEdgeHalveIt() throws {
        let world = World()
        world.answer(roundTrip: 0.001)
        for _ in 0..<12 {
            let estimate = try #require(world.clock.estimate)
            let now = world.boot.withLock { $0 }
            let edge = (now + 0.02 + 0.0005 + estimate.offset).rounded(.up)
            world.wait(edge - estimate.offset - 0.0005 - now)
            world.answer(roundTrip: 0.001)
        }
        let estimate = try #require(world.clock.estimate)
        #expect(estimate.uncertainty < 0.005, "\(estimate)")
        #expect(abs(world.error) <= estimate.uncertainty + 1e-9)
    }

    /// The device's wall clock may be ten minutes or a year off, and be set while splashd runs: the
    /// server's time is known all the same, and how far off the wall clock is, is told.
    @Test(arguments: [600.0, -600.0, 31_536_000.0])
    func aWrongWallClockChangesNothing(skew: Double) throws {
        let world = World()
        world.wallSkew.withLock { $0 = skew }
        for _ in 0..<50 {
            world.answer()
            world.wait(0.0371)
        }
        let estimate = try #require(world.clock.estimate)
        #expect(abs(world.error) <= estimate.uncertainty + 1e-9)
        #expect(abs(estimate.wallOffset + skew) <= estimate.uncertainty + 1e-6, "\(estimate)")
        world.wallSkew.withLock { $0 = 0 }
        #expect(abs(world.error) <= estimate.uncertainty + 1e-9, "a step of the wall clock moves nothing")
        let stamp = ActionStamp(date: world.clock.now(), device: "d")
        #expect(abs(Double(stamp.milliseconds) / 1000 - (world.boot.withLock { $0 } + world.serverOffset)) < 0.02)
    }

    /// Bounds widen with age (a boot clock may drift): an estimate left alone for a day is looser.
    @Test func anOldEstimateIsLooser() throws {
        let world = World()
        for _ in 0..<100 {
            world.answer()
            world.wait(0.0173)
        }
        let fresh = try #require(world.clock.estimate).uncertainty
        world.wait(86_400)
        let old = try #require(world.clock.estimate).uncertainty
        #expect(abs(old - fresh - 86_400 * ServerClock.drift) < 0.001)
    }

    /// The server's clock was set back a minute (or what was restored was wrong): the answers that no
    /// longer agree with the new ones go, and the estimate follows the server.
    @Test func answersThatDisagreeWithNewerOnesGo() throws {
        let world = World()
        for _ in 0..<30 {
            world.answer()
            world.wait(0.0411)
        }
        let moved = World(serverOffset: world.serverOffset - 60)
        moved.boot.withLock { $0 = world.boot.withLock { $0 } }
        // The same device's clock, now meeting the moved server.
        let saved = try #require(world.clock.saved)
        moved.clock.restore(saved)
        for _ in 0..<30 {
            moved.answer()
            moved.wait(0.0411)
        }
        let estimate = try #require(moved.clock.estimate)
        #expect(abs(moved.error) <= estimate.uncertainty + 1e-9, "\(estimate)")
        #expect(estimate.uncertainty < 0.1)
    }

    /// What a run saved is used by the next on the same boot as it was, and on another boot through the
    /// wall clock, a second wider.
    @Test func aSavedEstimateIsRestored() throws {
        let world = World()
        for _ in 0..<60 {
            world.answer()
            world.wait(0.029)
        }
        let saved = try #require(world.clock.saved)
        let sameBoot = World()
        sameBoot.boot.withLock { $0 = world.boot.withLock { $0 } + 5 }
        sameBoot.clock.restore(saved)
        let restored = try #require(sameBoot.clock.estimate)
        #expect(abs(sameBoot.error) <= restored.uncertainty + 1e-9)
        #expect(restored.uncertainty < 0.05)

        let nextBoot = World(bootId: "boot-2")
        nextBoot.boot.withLock { $0 = 12 }
        nextBoot.clock.restore(saved)
        let across = try #require(nextBoot.clock.estimate)
        #expect(abs(nextBoot.error) <= across.uncertainty + 1e-9)
        #expect(across.uncertainty > 1 && across.uncertainty < 1.1)
    }

    /// The first answer is handed on to be kept before `observe` returns (a sign-in's answer is, before
    /// its session is saved); then only what halves the estimate, or moves it, not every answer.
    @Test func whatIsLearntIsKeptAtOnceAndOnlyWhenItMatters() throws {
        let world = World()
        #expect(world.kept.all.isEmpty)
        world.answer()
        #expect(world.kept.all.count == 1, "the first answer")
        let first = try #require(world.kept.all.first)
        #expect(first == world.clock.saved)
        for _ in 0..<5 { world.answer() }
        #expect(world.kept.all.count == 1, "answers at the same point of a second teach nothing worth keeping")

        for step in 0..<200 {
            world.answer()
            world.wait(0.0137 * Double(step % 7 + 1))
        }
        let kept = world.kept.all
        #expect(kept.count > 2 && kept.count < 20, "kept as it halved: \(kept.count)")
        for (earlier, later) in zip(kept, kept.dropFirst()) {
            #expect(later.bound.high - later.bound.low <= (earlier.bound.high - earlier.bound.low) / 2 + 1e-9)
        }
        let last = try #require(kept.last)
        let estimate = try #require(world.clock.estimate)
        #expect((last.bound.high - last.bound.low) / 2 <= estimate.uncertainty * 2 + 1e-9, "what is kept is near what is known")

        // The server's clock was set back a minute: the first answer from it is kept at once.
        let moved = World(serverOffset: world.serverOffset - 60)
        moved.boot.withLock { $0 = world.boot.withLock { $0 } }
        moved.clock.restore(last)
        #expect(moved.kept.all.isEmpty, "what was restored is kept already")
        moved.answer()
        let after = try #require(moved.kept.all.last, "an answer that no longer meets what was kept")
        #expect(abs((after.bound.low + after.bound.high) / 2 - (moved.serverOffset)) < 1)
    }

    /// Before any answer the device does not know the server's now, and bounds no stamp by it (the
    /// server does); after one, the server's now and the skew it allows.
    @Test func theLatestMomentAcceptedIsKnownOnlyFromAnAnswer() throws {
        let world = World()
        world.wallSkew.withLock { $0 = -600 }
        #expect(world.clock.latestAccepted() == nil)
        world.answer()
        let latest = try #require(world.clock.latestAccepted())
        let server = world.boot.withLock { $0 } + world.serverOffset
        let uncertainty = try #require(world.clock.estimate).uncertainty
        #expect(abs(latest.timeIntervalSince1970 - (server + ServerClock.futureBound)) <= uncertainty + 1e-6)
    }

    /// Stamps compare by time, then by device; their wire text is exact to the millisecond.
    @Test func stampsOrderByTimeThenDevice() {
        let early = ActionStamp(milliseconds: 1_780_000_000_123, device: "b")
        #expect(early < ActionStamp(milliseconds: 1_780_000_000_124, device: "a"))
        #expect(ActionStamp(milliseconds: 1_780_000_000_123, device: "a") < early)
        #expect(early.wireText == "2026-05-28T20:26:40.123Z")
        #expect(ActionStamp(milliseconds: 1_780_000_000_999, device: "").wireText == "2026-05-28T20:26:40.999Z")
        #expect(ActionStamp(milliseconds: 1_780_000_001_000, device: "").wireText == "2026-05-28T20:26:41.000Z")
    }
}
