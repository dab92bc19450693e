import Logging
import Synchronization

/// The daemon's current log level, shared by every handler so that SIGHUP can change it live.
public final class LogLevelBox: Sendable {
    private let value: Mutex<Logger.Level>
    public init(_ level: Logger.Level) { value = Mutex(level) }
    public var level: Logger.Level {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
