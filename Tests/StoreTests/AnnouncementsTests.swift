import Foundation
import GRDB
import Library
import Shared
import Store
import Synchronization
import Testing
import TestSupport

/// The domain says what it did, whoever asked: each change of a photo's state once, and new work for
/// the server once per queued op; nothing for a change that changed nothing.
@Suite struct AnnouncementsTests {
    final class Heard: Sendable {
        let changes = Mutex<[PhotoChange]>([])
        let queued = Mutex(0)
        var announcements: Announcements {
            Announcements(
                photosChanged: { new in self.changes.withLock { $0 += new } },
                outboxQueued: { self.queued.withLock { $0 += 1 } })
        }
        var kinds: [PhotoChange.Kind] { changes.withLock { $0.map(\.change) } }
        var rings: Int { queued.withLock { $0 } }
    }

    let dir = TemporaryDirectory()
    let store: Store

    init() throws {
        store = try Store(path: dir.file("s.sqlite"))
        try store.write { db in try PhotoRecord(source: .unsplash, remoteId: "a", fetchedAt: Date()).insert(db) }
    }

    @Test func likesUnlikesAndDismissalsAnnounceWhatTheyChanged() throws {
        let heard = Heard()
        let likes = LikeActions(store: store, announce: heard.announcements)
        _ = try likes.like(photoId: "unsplash:a", accountId: "u")
        _ = try likes.like(photoId: "unsplash:a", accountId: "u")
        _ = try likes.unlike(photoId: "unsplash:a", accountId: "u")
        _ = try likes.setDismissed(true, photoId: "unsplash:a")
        #expect(heard.kinds == [.liked, .unliked, .dismissed], "the repeated like changed nothing")
        #expect(heard.rings == 2, "the like and the unlike queued work; the dismissal stays here")
        // The guest's like changes the photo here and queues nothing.
        _ = try likes.like(photoId: "unsplash:a", accountId: GuestRows.accountId)
        #expect(heard.kinds.last == .liked && heard.rings == 2)
    }

    @Test func aRefusedLikeAnnouncesNothing() throws {
        let heard = Heard()
        #expect(throws: LibraryError.self) { try LikeActions(store: store, announce: heard.announcements).like(photoId: "unsplash:none", accountId: "u") }
        #expect(heard.kinds.isEmpty && heard.rings == 0)
    }

    @Test func aRetriedOpRingsTheOutbox() throws {
        let heard = Heard()
        _ = try LikeActions(store: store).like(photoId: "unsplash:a", accountId: "u")
        let op = try #require(try OutboxQueue(store: store).list(rejectedOnly: false).first)
        try OutboxQueue(store: store, announce: heard.announcements).retry(opId: op.opId)
        #expect(heard.rings == 1)
    }
}
