import Foundation

/// When a person acted, on the server's clock to the millisecond, and on which device: what decides
/// between two devices' changes to the same row (the later wins; at the same millisecond the greater
/// device id, so every replica decides alike). Whole milliseconds, so that a stamp read back from the
/// store or the server compares exactly.
public struct ActionStamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970 on the server's clock.
    public var milliseconds: Int64
    /// The device that acted (`DeviceRows.id`); empty for a change that did not say (an older client).
    public var device: String

    public init(milliseconds: Int64, device: String) {
        self.milliseconds = milliseconds
        self.device = device
    }

    public init(date: Date, device: String) {
        self.init(milliseconds: Self.milliseconds(date), device: device)
    }

    public static func < (lhs: ActionStamp, rhs: ActionStamp) -> Bool {
        (lhs.milliseconds, lhs.device) < (rhs.milliseconds, rhs.device)
    }

    /// The nearest whole millisecond of `date`.
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// `2026-11-28T04:47:49.123Z`, as PostgREST reads a timestamp. The style truncates past the
    /// millisecond, so the date given to it lies a tenth of a millisecond past this stamp's.
    public var wireText: String {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000 + 0.0001).formatted(Self.style)
    }

    private static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    public var description: String { "\(wireText)@\(device.prefix(8))" }
}
