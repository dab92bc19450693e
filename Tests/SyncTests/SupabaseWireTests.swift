import Foundation
@testable import Sync
import Supabase
import Testing

/// The push's timestamps read exactly as they did through `ISO8601DateFormatter` (which cost 113 µs
/// to make, once per op): the same text for dates on both sides of 1970, halves of a millisecond
/// included.
@Suite struct SupabaseWireTests {
    @Test func timestampsMatchTheFormatterTheyReplace() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var generator = SystemRandomNumberGenerator()
        var dates = [0, 0.0005, 1.9995, -0.0005, -1.0005, 1_795_635_816.1005, 1_700_000_000.999_6].map(Date.init(timeIntervalSince1970:))
        for n in 0..<20_000 {
            let seconds = Double.random(in: -1_000_000_000...4_000_000_000, using: &generator).rounded(.down)
            dates.append(Date(timeIntervalSince1970: seconds + Double(n % 1000) / 1000 + Double.random(in: 0..<0.001, using: &generator)))
        }
        let differing = dates.filter { SupabaseTime.format($0) != formatter.string(from: $0) }
        #expect(differing.isEmpty, "\(differing.prefix(3).map { ($0.timeIntervalSince1970, SupabaseTime.format($0), formatter.string(from: $0)) })")
        #expect(SupabaseTime.format(Date(timeIntervalSince1970: 1_795_635_816.1234)) == "2026-11-25T19:43:36.123Z")
    }
}
