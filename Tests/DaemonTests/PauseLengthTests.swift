@testable import SplashCtlCommands
import Testing

/// `splashctl pause --for`: a length of time as a person writes one, or a usage error that says what
/// would do ("-5m" and "forever" are not lengths).
@Suite struct PauseLengthTests {
    @Test(arguments: [("30m", 1800), ("2h", 7200), ("1d", 86_400), ("1h30m", 5400), ("120s", 120), ("30d", 2_592_000)])
    func lengthsOfTime(text: String, seconds: Int) throws {
        #expect(try PauseLength.seconds(text) == seconds)
    }

    @Test(arguments: ["-5m", "forever", "2 hours", "", "30", "m", "1.5h", "5s", "31d", "99999999999d"])
    func whatIsNotALengthOfPauseIsRefusedWithWhatWouldDo(text: String) {
        #expect(throws: (any Error).self) { try PauseLength.seconds(text) }
    }
}
