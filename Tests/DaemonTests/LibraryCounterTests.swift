@testable import Daemon
import DaemonTestSupport
import Dispatch
import Foundation
import GRDB
import Library
import Logging
import Shared
import Store
import Synchronization
import Testing
import TestSupport

/// The counters in `status` and `library.changed` end as the store is, however the callers interleave.
@Suite struct LibraryCounterTests {
    /// Whoever writes — a handler, an engine, a test straight into the store — the counts in status have
    /// moved by the time the write returns: they are read at the commit, before the next write. A write
    /// that rolls back publishes nothing of its own.
    @Test func everyCommitThatMovesTheCountsPublishesThem() async throws {
        let daemon = try await InProcessDaemon(photos: ["a"])
        try daemon.store.write { db in try PhotoRecord(source: .unsplash, remoteId: "b", fetchedAt: Date()).insert(db) }
        #expect(daemon.state.current.library.photos == 2)
        try daemon.store.write { db in
            try LikeRecord(accountId: "", photoId: "unsplash:b", likedAt: Date(), updatedAt: Date()).insert(db)
        }
        #expect(daemon.state.current.library.liked == 1)
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try daemon.store.write { db in
                try PhotoRecord(source: .unsplash, remoteId: "c", fetchedAt: Date()).insert(db)
                throw Refused()
            }
        }
        #expect(daemon.state.current.library.photos == 2)
        try daemon.store.write { db in try db.execute(sql: "UPDATE photos SET dismissed_at = ? WHERE remote_id = 'a'", arguments: [Date()]) }
        #expect(daemon.state.current.library.dismissed == 1)
    }

    /// One caller is held between reading its counts and publishing them while a photo arrives and a
    /// second caller counts it. Unordered, the second would publish 2 and the first then 1, which
    /// would stay (as `status` once showed 4 library files of 5). The second is given a second to get
    /// past the first; with the lock it waits instead, and publishes last. The store here has no
    /// observer of its commits (the daemon's never writes under the counter's lock; this test does).
    @Test func aCountReadBeforeAnotherIsNeverPublishedAfterIt() async throws {
        let directory = TemporaryDirectory()
        let store = try Store(path: directory.file("s.sqlite"))
        try store.write { db in try PhotoRecord(source: .unsplash, remoteId: "a", fetchedAt: Date()).insert(db) }
        let daemon = (store: store, state: DaemonState(bus: EventBus(), directories: DaemonStatus.example.directories))
        let library = PhotoLibrary(store: daemon.store)
        let plain = LibraryCounter(state: daemon.state, library: library, logger: Logger(label: "test"))
        let secondDone = DispatchSemaphore(value: 0)
        let held = Mutex(false)
        var heldCounter = plain
        heldCounter.counted = {
            guard !held.withLock({ let was = $0; $0 = true; return was }) else { return }
            try? daemon.store.write { db in try PhotoRecord(source: .unsplash, remoteId: "b", fetchedAt: Date()).insert(db) }
            Thread.detachNewThread {
                plain.refresh()
                secondDone.signal()
            }
            // Unordered, the second has published by now; its signal is given back for the wait below.
            if secondDone.wait(timeout: .now() + 1) == .success { secondDone.signal() }
        }
        let first = heldCounter
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                first.refresh()
                secondDone.wait()
                done.resume()
            }
        }
        #expect(held.withLock { $0 })
        #expect(daemon.state.current.library.photos == 2)
    }
}
