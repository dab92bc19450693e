/// A finished download: the file is complete, flushed to disk and renamed to `path`.
public struct DownloadResult: Sendable, Equatable {
    public var path: String
    public var size: Int64
    /// Bytes reused from an earlier attempt's `.part` file (0 when the download started from scratch).
    public var resumedFrom: Int64
    /// SHA-256 of the file, taken as its bytes arrived.
    public var sha256: [UInt8]
}
