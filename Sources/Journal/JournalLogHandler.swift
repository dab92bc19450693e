import CSystemd
import Foundation
import Logging

/// A swift-log handler that writes one journal entry per message with `sd_journal_sendv`: MESSAGE,
/// PRIORITY, SYSLOG_IDENTIFIER, CODE_FILE/LINE/FUNC, and each metadata key as a `SPLASHD_*` field.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level {
        get { levelBox.level }
        set { levelBox.level = newValue }
    }
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    let levelBox: LogLevelBox

    public init(label: String, level: LogLevelBox) {
        self.label = label
        self.levelBox = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = [
            "MESSAGE=\(event.message)",
            "PRIORITY=\(LogFields.priority(event.level))",
            "SYSLOG_IDENTIFIER=splashd",
            "CODE_FILE=\(event.file)",
            "CODE_LINE=\(event.line)",
            "CODE_FUNC=\(event.function)",
        ]
        for (key, value) in LogFields.merged(metadata, provider: metadataProvider, event: event.metadata) {
            fields.append("\(LogFields.journalFieldName(key))=\(LogFields.redacted(key: key, value: value))")
        }
        Self.send(fields)
    }

    static func send(_ fields: [String]) {
        // Each field is "NAME=value" as raw bytes; values may hold newlines, which the journal keeps.
        let buffers = fields.map { Array($0.utf8) }
        var iovecs: [iovec] = []
        iovecs.reserveCapacity(buffers.count)
        withExtendedLifetime(buffers) {
            for buffer in buffers {
                buffer.withUnsafeBufferPointer { pointer in
                    iovecs.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: pointer.baseAddress), iov_len: pointer.count))
                }
            }
            _ = iovecs.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
    }
}
