@testable import Sync
import Testing

/// The gate's turns are numbered in the order they are given: a pull that reads its next page ahead in
/// one turn takes it as it is only in the turn numbered just after, when no other turn (a push batch)
/// came between.
@Suite struct SyncGateTests {
    @Test func turnsFollowingOneAnotherAreNumberedOneApart() async {
        let gate = SyncGate()
        let first = await gate.run(numbered: { $0 })
        let second = await gate.run(numbered: { $0 })
        #expect(second == first + 1)
    }

    @Test func aTurnTakenBetweenTwoOthersBreaksTheirSequence() async {
        let gate = SyncGate()
        let first = await gate.run(numbered: { $0 })
        // Another part of the daemon (a push batch) takes the gate.
        await gate.run { () }
        let third = await gate.run(numbered: { $0 })
        #expect(third == first + 2, "the pull's next turn sees that it did not follow its last one")
    }

    @Test func aTurnAskedForWhileTheGateIsHeldComesAfterIt() async {
        let gate = SyncGate()
        let (held, release) = AsyncStream.makeStream(of: Void.self)
        let (entered, enter) = AsyncStream.makeStream(of: UInt64.self)
        async let holder: UInt64 = gate.run(numbered: { turn in
            enter.yield(turn)
            for await _ in held { break }
            return turn
        })
        var iterator = entered.makeAsyncIterator()
        let holding = await iterator.next()
        async let waiter: UInt64 = gate.run(numbered: { $0 })
        release.yield()
        let (h, w) = await (holder, waiter)
        #expect(holding == h && w == h + 1)
    }
}
