/// How this device's clock stands against the account server's, which orders every device's changes.
public struct ServerClockStatus: Codable, Sendable, Equatable {
    /// The server's time minus this device's wall clock, in seconds (positive: this device is behind).
    public var offsetSeconds: Double
    /// How far splashd's estimate of the server's time may be off, either way, in seconds.
    public var uncertaintySeconds: Double

    public init(offsetSeconds: Double, uncertaintySeconds: Double) {
        self.offsetSeconds = offsetSeconds
        self.uncertaintySeconds = uncertaintySeconds
    }

    /// Past this, the device's clock is worth telling the person about (changes are ordered right anyway).
    public static let noticeableSeconds = 60.0

    public var isFarOff: Bool { abs(offsetSeconds) >= Self.noticeableSeconds }
}
