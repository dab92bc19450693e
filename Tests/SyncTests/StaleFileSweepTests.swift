import Foundation
import Logging
import Store
@testable import Sync
import Testing
import TestSupport

/// The sweep at start removes what a run that died left half-written, and nothing this process is
/// writing while it runs: an edit saved just after a start is rendered into its `.part` then.
@Suite struct StaleFileSweepTests {
    let dir = TemporaryDirectory()

    @Test func anEditsPieceOfARunThatDiedGoesAndOneBeingWrittenNowStays() throws {
        let store = try Store(path: dir.file("s.sqlite"))
        let folder = dir.path + "/data/library/unsplash"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let old = folder + "/p1.edit-11111111-1111-4111-8111-111111111111.jpg.part"
        let pulled = folder + "/p1.pulled-22222222-2222-4222-8222-222222222222.edit-x.jpg"
        let now = folder + "/p2.edit-33333333-3333-4333-8333-333333333333.jpg.part"
        for path in [old, pulled, now] { FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3])) }
        let started = Date()
        let past = Date(timeIntervalSinceNow: -60)
        for path in [old, pulled] { try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: path) }
        try FileManager.default.setAttributes([.modificationDate: started.addingTimeInterval(1)], ofItemAtPath: now)

        StaleFileSweep(
            store: store, dataDirectory: dir.path + "/data", cacheDirectory: dir.path + "/cache", variant: "regular",
            processStarted: started, logger: Logger(label: "test")
        ).run(accountId: "")

        #expect(!FileManager.default.fileExists(atPath: old), "a piece of a run that died is removed")
        #expect(!FileManager.default.fileExists(atPath: pulled), "a pulled rendering never recorded is removed")
        #expect(FileManager.default.fileExists(atPath: now), "the piece an edit is being rendered into now stays")
    }
}
