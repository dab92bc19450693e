#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging

/// Where logs go: `--log-target journal|stderr|auto`. `auto` picks the journal when stderr is the
/// journal's own stream (`$JOURNAL_STREAM` names stderr's device and inode, as systemd sets it).
public enum LogTarget: String, Sendable, CaseIterable {
    case journal, stderr, auto

    public func makeHandler(label: String, level: LogLevelBox, environment: [String: String]) -> any LogHandler {
        switch resolved(environment: environment) {
        case .journal: return JournalLogHandler(label: label, level: level)
        default:
            return StderrLogHandler(level: level, style: isatty(STDERR_FILENO) == 1 ? .plain : .prefixed)
        }
    }

    public func resolved(environment: [String: String]) -> LogTarget {
        guard self == .auto else { return self }
        return Self.stderrIsJournal(environment["JOURNAL_STREAM"]) ? .journal : .stderr
    }

    static func stderrIsJournal(_ value: String?) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
