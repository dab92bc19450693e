import Logging
import Synchronization

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
        rules(key).field
    }

    private static func fieldName(_ key: String) -> String {
        var name = String(key.uppercased().map { ($0.isASCII && ($0.isLetter || $0.isNumber)) ? $0 : "_" })
        if !name.hasPrefix("SPLASHD_") { name = "SPLASHD_" + name }
        return name
    }

    /// Keys that must never carry their value into a log, whatever a caller passed by mistake.
    static let secretWords = ["password", "token", "secret", "apikey", "api_key", "authorization", "access_key", "anon_key"]

    public static func redacted(key: String, value: Logger.Metadata.Value) -> String {
        rules(key).secret ? "[redacted]" : "\(value)"
    }

    /// What the rules say of a key, worked out once per key: every log line goes through each of its
    /// keys, and the eight substring searches alone were 2 % of the daemon's CPU while it downloaded a
    /// thousand photos (a line per photo). The keys are the code's own few names; a key passed in from
    /// elsewhere is still checked, only not kept past `knownLimit`.
    private static func rules(_ key: String) -> (secret: Bool, field: String) {
        if let rules = known.withLock({ $0[key] }) { return rules }
        let lower = key.lowercased()
        let rules = (secret: secretWords.contains(where: lower.contains), field: fieldName(key))
        known.withLock { known in
            if known.count < knownLimit { known[key] = rules }
        }
        return rules
    }

    private static let known = Mutex<[String: (secret: Bool, field: String)]>([:])
    private static let knownLimit = 1024

    static func merged(
        _ handler: Logger.Metadata, provider: Logger.MetadataProvider?, event: Logger.Metadata?
    ) -> Logger.Metadata {
        var all = handler
        if let provider { all.merge(provider.get(), uniquingKeysWith: { _, new in new }) }
        if let event { all.merge(event, uniquingKeysWith: { _, new in new }) }
        return all
    }
}
