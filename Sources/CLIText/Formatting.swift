import Foundation

/// Human-friendly numbers and times: local time, relative where that reads better ("2 min ago",
/// "há 2 min"), decimals with the language's separator ("1.5 MB", "1,5 MB").
public enum Formatting {
    public static func relative(_ date: Date, now: Date = Date(), language: Language = .current) -> String {
        let seconds = now.timeIntervalSince(date)
        if seconds < 0 { return absolute(date) }
        let message: Message
        switch seconds {
        case ..<60: message = .justNow
        case ..<3600: message = .minutesAgo(Int(seconds / 60))
        case ..<86_400: message = .hoursAgo(Int(seconds / 3600))
        case ..<(7 * 86_400): message = .daysAgo(Int(seconds / 86_400))
        default: return absolute(date)
        }
        return message.text(language)
    }

    public static func relativeFuture(_ date: Date, now: Date = Date(), language: Language = .current) -> String {
        let seconds = date.timeIntervalSince(now)
        if seconds <= 0 { return Message.now.text(language) }
        return Message.inDuration(duration(seconds, language: language)).text(language)
    }

    public static func absolute(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        formatter.timeZone = .current
        return formatter.string(from: date)
    }

    public static func clock(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        formatter.timeZone = .current
        return formatter.string(from: date)
    }

    /// Units (s, min, h, d) read the same in both languages; only the decimal separator differs.
    public static func duration(_ seconds: Double, language: Language = .current) -> String {
        switch seconds {
        case ..<60: return "\(Int(seconds)) s"
        case ..<3600: return "\(Int(seconds / 60)) min"
        case ..<86_400: return language.decimal(seconds / 3600) + " h"
        default: return language.decimal(seconds / 86_400) + " d"
        }
    }

    public static func bytes(_ count: Int64, language: Language = .current) -> String {
        let (value, unit) = scaled(count)
        return unit == "B" ? "\(count) B" : language.decimal(value) + " " + unit
    }

    /// A rate as the configuration says it ("2 MB/s", "1.5 KB/s"): no decimals a round rate does not have.
    public static func rate(_ bytesPerSecond: Int64, language: Language = .current) -> String {
        let (value, unit) = scaled(bytesPerSecond)
        let number = value == value.rounded() ? String(Int(value)) : language.decimal(value)
        return number + " " + unit + "/s"
    }

    /// `count` in the largest decimal unit it reaches.
    private static func scaled(_ count: Int64) -> (value: Double, unit: String) {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return (value, units[unit])
    }
}
