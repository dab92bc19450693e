import Clocks
@testable import Daemon
import Testing

/// At most one notification a minute of each kind.
@Suite struct NotificationPacerTests {
    @Test func oneAMinuteOfEachKind() async {
        let clock = TestClock()
        let pacer = NotificationPacer(clock: AnyClock(clock))
        #expect(pacer.mayShow("rejected"))
        #expect(!pacer.mayShow("rejected"), "the same kind at once")
        #expect(pacer.mayShow("signed_out"), "another kind is its own")
        await clock.advance(by: .seconds(59))
        #expect(!pacer.mayShow("rejected"))
        await clock.advance(by: .seconds(1))
        #expect(pacer.mayShow("rejected"), "a minute after the last shown")
        #expect(!pacer.mayShow("rejected"))
    }
}
