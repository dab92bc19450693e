import Foundation

/// The person's pause of sync (`sync.pause`), kept across restarts and kill -9.
public struct PauseStatus: Codable, Sendable, Equatable {
    public var paused: Bool
    /// When it ends by itself (the wall clock's: time asleep counts); absent: at `sync.resume`.
    public var until: Date?
    /// Only whole files wait (library downloads, originals, prefetched thumbnails); likes, edits, the
    /// profile and the live channel go on.
    public var downloadsOnly: Bool

    public init(paused: Bool, until: Date? = nil, downloadsOnly: Bool = false) {
        self.paused = paused
        self.until = until
        self.downloadsOnly = downloadsOnly
    }

    public static let running = PauseStatus(paused: false)
    public static let example = PauseStatus(paused: true, until: Date(timeIntervalSince1970: 1_795_007_200), downloadsOnly: false)
}
