import Foundation

/// Timestamps on Supabase's wire. It writes them like `2025-07-11T18:18:45.537+00:00` or
/// `...45.810554+00:00`: any number of fractional digits and an offset. `ISO8601DateFormatter` without
/// fractional seconds rejects them and with them accepts only some digit counts, so they are parsed by
/// hand. They are sent as PostgREST reads them: `2026-11-25T19:01:26.123Z`, to the nearest millisecond.
public enum SupabaseTime {
    /// A value type, formatting in well under a microsecond. An `ISO8601DateFormatter` made per call
    /// cost 113 µs on this machine, once or twice per op of every push batch.
    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// `2026-11-25T19:01:26.123Z`.
    public static func format(_ date: Date) -> String {
        // The style drops what lies past the millisecond where the formatter rounded it (half up):
        // round first, then format a hair past the millisecond so that its truncation keeps it.
        let milliseconds = (date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down)
        return Date(timeIntervalSince1970: milliseconds / 1000 + 0.0001).formatted(style)
    }

    /// `YYYY-MM-DD(T| )HH:MM:SS[.fraction][Z|±HH[:MM]]`; no offset means UTC. Nil for anything else.
    public static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ count: Int) -> Int? {
            guard i + count <= b.count else { return nil }
            var value = 0
            for k in i..<(i + count) {
                guard (48...57).contains(b[k]) else { return nil }
                value = value * 10 + Int(b[k] - 48)
            }
            i += count
            return value
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2), expect(UInt8(ascii: "-")),
              let day = digits(2), i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ")
        else { return nil }
        i += 1
        guard let hour = digits(2), expect(UInt8(ascii: ":")), let minute = digits(2), expect(UInt8(ascii: ":")),
              let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var fraction = 0.0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, (48...57).contains(b[i]) {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset = 0
        if i < b.count {
            switch b[i] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                i += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = digits(2) else { return nil }
                var om = 0
                if i < b.count {
                    _ = expect(UInt8(ascii: ":"))
                    guard let m = digits(2) else { return nil }
                    om = m
                }
                offset = sign * (oh * 3600 + om * 60)
            default:
                return nil
            }
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
