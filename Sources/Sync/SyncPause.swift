import Clocks
import Foundation
import Logging
import ServiceLifecycle
import Shared
import Support
import Synchronization

/// The person's pause of sync (`splashctl pause`): kept in a file of the state directory, written
/// durably (a restart, a kill -9 or a power cut finds it as it was answered), and ended by itself at
/// `until`, a wall-clock date: a pause "for 2 h" counts the time the machine slept. While paused the
/// gate holds sync (or whole files only), and changes queue as when offline.
public final class SyncPause: Service, Sendable {
    private let path: String
    private let gate: BackgroundGate
    private let now: @Sendable () -> Date
    private let clock: AnyClock<Duration>
    private let logger: Logger
    private let changed: @Sendable (PauseStatus) -> Void
    private let status: Mutex<PauseStatus>
    private let wakeup = Wakeup()

    /// Reads the pause kept at `path` (none, unreadable or over: not paused) and holds the gate for it.
    public init(
        path: String, gate: BackgroundGate, now: @escaping @Sendable () -> Date = Date.init, clock: AnyClock<Duration>, logger: Logger,
        changed: @escaping @Sendable (PauseStatus) -> Void
    ) {
        self.path = path
        self.gate = gate
        self.now = now
        self.clock = clock
        self.logger = logger
        self.changed = changed
        var kept = PauseStatus.running
        if let data = FileManager.default.contents(atPath: path) {
            do {
                kept = try JSONCoding.decoder().decode(PauseStatus.self, from: data)
            } catch {
                logger.warning("the pause kept at \(path) cannot be read (\(error)); sync is not paused", metadata: ["splashd_op": "pause"])
            }
        }
        if let until = kept.until, until <= now() { kept = .running }
        status = Mutex(kept)
        gate.update { $0.paused = Self.work(kept) }
    }

    public var current: PauseStatus { status.withLock { $0 } }

    /// Pauses sync (or whole files only) for `duration`, or until `resume`; kept before it answers.
    public func pause(for duration: TimeInterval?, downloadsOnly: Bool) throws(FileError) -> PauseStatus {
        let paused = PauseStatus(paused: true, until: duration.map { now().addingTimeInterval($0) }, downloadsOnly: downloadsOnly)
        try keep(paused)
        logger.notice("sync paused", metadata: [
            "splashd_op": "pause", "splashd_until": "\(paused.until.map { "\($0)" } ?? "resumed")", "splashd_downloads_only": "\(downloadsOnly)",
        ])
        return paused
    }

    /// Ends the pause now; not paused, nothing changes.
    public func resume() throws(FileError) -> PauseStatus {
        guard current.paused else { return .running }
        try keep(.running)
        logger.notice("sync resumed", metadata: ["splashd_op": "pause"])
        return .running
    }

    /// Ends a pause at its `until`: asleep until then (an hour at most, so that a wall clock set or a
    /// suspend is seen), woken by every change.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                guard let until = self.current.until else {
                    await self.wakeup.wait(until: nil)
                    continue
                }
                let left = until.timeIntervalSince(self.now())
                if left <= 0 {
                    do {
                        try self.keep(.running)
                        self.logger.notice("the pause ended", metadata: ["splashd_op": "pause"])
                    } catch {
                        self.logger.error("cannot end the pause: \(error); tried again in a minute", metadata: ["splashd_op": "pause"])
                        try? await self.clock.sleep(for: .seconds(60))
                    }
                    continue
                }
                await self.wakeup.wait(until: self.clock.now.advanced(by: .seconds(min(left, 3600))), clock: self.clock)
            }
        }
    }

    /// Writes `new` durably, then makes it the pause: a pause answered is a pause kept.
    private func keep(_ new: PauseStatus) throws(FileError) {
        if new.paused {
            let data: Data
            do {
                data = try JSONCoding.encoder().encode(new)
            } catch {
                throw FileError(.write, path: path, errno: EINVAL)
            }
            try DurableFile.write(data, to: path)
        } else if unlink(path) != 0 && errno != ENOENT {
            throw FileError(.remove, path: path, errno: errno)
        } else {
            DurableFile.syncDirectory(of: path)
        }
        status.withLock { $0 = new }
        gate.update { $0.paused = Self.work(new) }
        wakeup.ring()
        changed(new)
    }

    private static func work(_ status: PauseStatus) -> BackgroundGate.PausedWork? {
        status.paused ? (status.downloadsOnly ? .downloads : .all) : nil
    }
}
