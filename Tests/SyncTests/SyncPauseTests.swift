import Clocks
import Foundation
import Logging
import Shared
@testable import Sync
import Synchronization
import Testing
import TestSupport

/// The person's pause of sync: kept on disk as answered, holding the gate, ended at its time by the
/// wall clock; and the method refuses a length out of range.
@Suite struct SyncPauseTests {
    let dir = TemporaryDirectory()
    let wall = WallClock()

    /// The wall clock the pause reads, moved by the test.
    final class WallClock: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_795_000_000))
        var now: Date { date.withLock { $0 } }
        func advance(by seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    func pause(gate: BackgroundGate = BackgroundGate(), clock: TestClock<Duration> = TestClock(), seen: Changes = Changes()) -> SyncPause {
        SyncPause(
            path: dir.file("pause.json"), gate: gate, now: { [wall] in wall.now }, clock: AnyClock(clock),
            logger: Logger(label: "test")
        ) { seen.append($0) }
    }

    final class Changes: Sendable {
        private let all = Mutex<[PauseStatus]>([])
        func append(_ status: PauseStatus) { all.withLock { $0.append(status) } }
        var list: [PauseStatus] { all.withLock { $0 } }
    }

    @Test func aPauseIsKeptAcrossARestartAndHoldsTheGate() throws {
        let gate = BackgroundGate(), seen = Changes()
        let paused = try pause(gate: gate, seen: seen).pause(for: 7200, downloadsOnly: false)
        #expect(paused == PauseStatus(paused: true, until: wall.now.addingTimeInterval(7200)))
        #expect(seen.list == [paused])
        #expect(!gate.allowsSync && !gate.allowsTransfers && gate.allowsBackgroundWork)

        // A new daemon on the same state directory (a restart, a kill -9) finds the pause as answered.
        let restartedGate = BackgroundGate()
        let restarted = pause(gate: restartedGate)
        #expect(restarted.current == paused)
        #expect(!restartedGate.allowsSync && !restartedGate.allowsTransfers)

        #expect(try restarted.resume() == .running)
        #expect(restartedGate.allowsSync && restartedGate.allowsTransfers)
        #expect(!FileManager.default.fileExists(atPath: dir.file("pause.json")))
        #expect(pause().current == .running)
        #expect(try restarted.resume() == .running, "resuming what runs changes nothing")
    }

    @Test func downloadsOnlyHoldsWholeFilesButNotSync() throws {
        let gate = BackgroundGate()
        _ = try pause(gate: gate).pause(for: nil, downloadsOnly: true)
        #expect(gate.allowsSync && !gate.allowsTransfers)
        #expect(pause().current == PauseStatus(paused: true, until: nil, downloadsOnly: true), "until resume, kept")
    }

    @Test func aPauseOverOrUnreadableAtTheStartIsNone() throws {
        _ = try pause().pause(for: 60, downloadsOnly: false)
        wall.advance(by: 61)
        let gate = BackgroundGate()
        #expect(pause(gate: gate).current == .running, "its time passed while splashd was stopped")
        #expect(gate.allowsSync)

        try Data("{\"paused\": tr".utf8).write(to: URL(fileURLWithPath: dir.file("pause.json")))
        #expect(pause().current == .running, "a file it cannot read pauses nothing")
    }

    @Test func aPauseEndsByItselfAtItsTime() async throws {
        let clock = TestClock(), gate = BackgroundGate(), seen = Changes()
        let keeper = pause(gate: gate, clock: clock, seen: seen)
        let running = Task { try await keeper.run() }
        defer { running.cancel() }
        _ = try keeper.pause(for: 600, downloadsOnly: false)
        _ = await eventually(tries: 500, every: .milliseconds(10)) { await clock.hasSleeper() } until: { $0 }
        wall.advance(by: 600)
        await clock.advance(by: .seconds(600))
        let ended = await eventually(tries: 500, every: .milliseconds(10)) { keeper.current } until: { !$0.paused }
        #expect(ended == .running && gate.allowsSync)
        #expect(seen.list.map(\.paused) == [true, false])
    }

    @Test func theMethodRefusesALengthOutOfRange() {
        #expect(throws: RPCError.self) { try SyncPauseRequest(forSeconds: 0).validate() }
        #expect(throws: RPCError.self) { try SyncPauseRequest(forSeconds: -300).validate() }
        #expect(throws: RPCError.self) { try SyncPauseRequest(forSeconds: 31 * 86_400).validate() }
        #expect(throws: Never.self) { try SyncPauseRequest(forSeconds: 60).validate() }
    }
}
