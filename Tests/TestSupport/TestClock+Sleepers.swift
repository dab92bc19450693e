import Clocks

extension TestClock<Duration> {
    /// Whether something sleeps on the clock, waited for as `eventually` waits (a task that is about to
    /// sleep is given a few seconds to): `checkSuspension` throws when something does. A test advances
    /// the clock only after this, or the sleep that starts later would wait for the next advance.
    public func hasSleeper() async -> Bool {
        await eventually(within: .seconds(5)) { (try? await self.checkSuspension()) == nil }
    }
}
