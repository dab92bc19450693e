/// The payload of `images.changed`: a library file started, arrived or failed, with the queue's totals.
/// Sent per file transition (not per byte), so a watcher can draw progress without flooding the bus.
public struct ImagesProgress: Codable, Sendable, Equatable {
    public enum Change: String, Codable, Sendable {
        case started, finished, failed
    }

    public var photo: String
    public var change: Change
    /// The failure, for `failed`.
    public var error: String?
    /// Files being fetched now, and waiting to retry.
    public var downloading: Int
    public var waiting: Int
    /// Files (and bytes) that arrived since the daemon started.
    public var finished: Int
    public var bytes: Int64

    public init(photo: String, change: Change, error: String? = nil, downloading: Int, waiting: Int, finished: Int, bytes: Int64) {
        self.photo = photo
        self.change = change
        self.error = error
        self.downloading = downloading
        self.waiting = waiting
        self.finished = finished
        self.bytes = bytes
    }
}
