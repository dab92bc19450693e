import Shared

/// Where the library's domain says what it did: photos whose state a person sees changed, and that the
/// outbox holds new work for the server. The daemon sends the first to its event bus and the second to
/// the push engine, so every client of the router hears of a change the same way, whichever asked for
/// it; a handler only checks, calls and replies.
public struct Announcements: Sendable {
    public var photosChanged: @Sendable ([PhotoChange]) -> Void
    public var outboxQueued: @Sendable () -> Void

    public init(
        photosChanged: @escaping @Sendable ([PhotoChange]) -> Void, outboxQueued: @escaping @Sendable () -> Void
    ) {
        self.photosChanged = photosChanged
        self.outboxQueued = outboxQueued
    }

    /// Nobody listens (tests of the domain alone).
    public static let silent = Announcements(photosChanged: { _ in }, outboxQueued: {})

    func changed(_ id: String, _ kind: PhotoChange.Kind) {
        photosChanged([PhotoChange(id: id, change: kind)])
    }
}
