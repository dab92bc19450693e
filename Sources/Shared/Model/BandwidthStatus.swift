/// The rates all of splashd's transfers together keep under (`network.max_download_rate`,
/// `max_upload_rate`), as the running daemon holds them (a reload changes them).
public struct BandwidthStatus: Codable, Sendable, Equatable {
    /// Bytes a second; absent: no limit.
    public var maxDownloadRate: Int64?
    public var maxUploadRate: Int64?

    public init(maxDownloadRate: Int64? = nil, maxUploadRate: Int64? = nil) {
        self.maxDownloadRate = maxDownloadRate
        self.maxUploadRate = maxUploadRate
    }

    /// Whether either direction is limited.
    public var isLimited: Bool { maxDownloadRate != nil || maxUploadRate != nil }

    public static let example = BandwidthStatus(maxDownloadRate: 2_000_000)
}
