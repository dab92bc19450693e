import Foundation
import GRDB
@testable import Store
import Shared
import Synchronization
import Testing
import TestSupport

/// `Store.observeFileMoves`: a file moved between the library and the cache is announced at its commit;
/// a thumbnail arriving, a file looked at, a move rolled back are not moves.
@Suite struct FileMovesObserverTests {
    let dir = TemporaryDirectory()
    let store: Store
    let moves = Moves()
    let file = PhotoFileStore.File(
        photoId: "unsplash:a", variant: "regular", path: "images/unsplash/a.regular.jpg", inLibrary: false, bytes: 1,
        checksum: nil, createdAt: PhotoFixtures.epoch, lastAccessAt: PhotoFixtures.epoch)

    init() throws {
        store = try Store(path: dir.file("s.sqlite"))
        let file = file
        try store.write { db in
            try PhotoFixtures.photo("a").insert(db)
            try PhotoFileStore.record(db, file)
        }
        let moves = moves
        store.observeFileMoves { moves.count.withLock { $0 += 1 } }
    }

    final class Moves: Sendable {
        let count = Mutex(0)
    }

    @Test func aMoveIsAnnouncedAndNothingElse() throws {
        try store.write { db in
            var thumb = file
            thumb.variant = "thumb"
            try PhotoFileStore.record(db, thumb)
            try PhotoFileStore.touch(db, photoId: "unsplash:a", now: PhotoFixtures.epoch.addingTimeInterval(1))
        }
        #expect(moves.count.withLock { $0 } == 0)

        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.write { db in
                try PhotoFileStore.moved(db, file, to: file.movedPath, inLibrary: true, now: PhotoFixtures.epoch)
                throw Refused()
            }
        }
        #expect(moves.count.withLock { $0 } == 0)

        try store.write { db in try PhotoFileStore.moved(db, file, to: file.movedPath, inLibrary: true, now: PhotoFixtures.epoch) }
        #expect(moves.count.withLock { $0 } == 1)
    }
}
