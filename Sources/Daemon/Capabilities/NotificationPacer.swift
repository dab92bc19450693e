import Clocks
import Synchronization

/// At most one notification a minute of each kind: a server refusing a batch of changes, one at a
/// time, is one notification, not fifty.
final class NotificationPacer: Sendable {
    static let spacing = Duration.seconds(60)

    private let clock: AnyClock<Duration>
    private let shown = Mutex<[String: AnyClock<Duration>.Instant]>([:])

    init(clock: AnyClock<Duration>) {
        self.clock = clock
    }

    /// Whether one of `kind` may show now (and, if so, notes that it did).
    func mayShow(_ kind: String) -> Bool {
        let now = clock.now
        return shown.withLock { shown in
            if let last = shown[kind], last.duration(to: now) < Self.spacing { return false }
            shown[kind] = now
            return true
        }
    }
}
