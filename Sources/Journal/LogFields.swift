import Logging

/// Pure rules shared by the journal and stderr handlers: field names, priorities, redaction.
public enum LogFields {
    /// syslog priorities as journald expects them.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// `splashd_http_status` → `SPLASHD_HTTP_STATUS`; only [A-Z0-9_], always prefixed SPLASHD_.
    public static func journalFieldName(_ key: String) -> String {
        var name = String(key.uppercased().map { ($0.isASCII && ($0.isLetter || $0.isNumber)) ? $0 : "_" })
        if !name.hasPrefix("SPLASHD_") { name = "SPLASHD_" + name }
        return name
    }

    /// Keys that must never carry their value into a log, whatever a caller passed by mistake.
    static let secretWords = ["password", "token", "secret", "apikey", "api_key", "authorization", "access_key", "anon_key"]

    public static func redacted(key: String, value: Logger.Metadata.Value) -> String {
        let lower = key.lowercased()
        return secretWords.contains(where: lower.contains) ? "[redacted]" : "\(value)"
    }

    static func merged(
        _ handler: Logger.Metadata, provider: Logger.MetadataProvider?, event: Logger.Metadata?
    ) -> Logger.Metadata {
        var all = handler
        if let provider { all.merge(provider.get(), uniquingKeysWith: { _, new in new }) }
        if let event { all.merge(event, uniquingKeysWith: { _, new in new }) }
        return all
    }
}
