#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging

/// Lines on stderr: with `<N>` priority prefixes (sd-daemon(3)) when stderr goes to a log collector,
/// plain and readable on a terminal.
public struct StderrLogHandler: LogHandler {
    public enum Style: Sendable { case prefixed, plain }

    public var logLevel: Logger.Level {
        get { levelBox.level }
        set { levelBox.level = newValue }
    }
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    let style: Style
    let levelBox: LogLevelBox

    public init(level: LogLevelBox, style: Style) {
        self.levelBox = level
        self.style = style
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = LogFields.merged(metadata, provider: metadataProvider, event: event.metadata)
        let fields = all.keys.sorted().map { "\($0.lowercased())=\(LogFields.redacted(key: $0, value: all[$0]!))" }
        let suffix = fields.isEmpty ? "" : " " + fields.joined(separator: " ")
        let message = "\(event.message)".replacingOccurrences(of: "\n", with: " ")
        let line: String = switch style {
        case .prefixed: "<\(LogFields.priority(event.level))>\(message)\(suffix)\n"
        case .plain: "splashd: \(event.level): \(message)\(suffix)\n"
        }
        // One write(2) per line: lines from several threads never interleave.
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
