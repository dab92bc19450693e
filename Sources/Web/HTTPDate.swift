#if canImport(Glibc)
import Glibc
#endif

/// The `Date` header's form (RFC 9110's IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`), made when an
/// answer is written.
enum HTTPDate {
    static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = [CChar](repeating: 0, count: 40)
        let count = strftime(&text, text.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: text.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
