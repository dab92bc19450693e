import Editing
import Foundation
import GRDB
import Library
import Logging
import Store
@testable import Sync
import Synchronization
import Testing
import TestSupport

/// The duplicate scanner's bookkeeping over a real store, with the perceptual hash given per path (the
/// hash itself is libvips', tested in EditingTests and end to end in ImportTests).
@Suite struct DuplicateScannerTests {
    let dir = TemporaryDirectory()
    let store: Store

    /// Photos a…e, liked by "u"; a and b have library files already hashed.
    init() throws {
        store = try Store(path: dir.file("s.sqlite"))
        try store.write { db in
            for (n, id) in ["a", "b", "c", "d", "e"].enumerated() {
                try PhotoRecord(source: "unsplash", remoteId: id, fetchedAt: Date()).insert(db)
                try LikeRecord(accountId: "u", photoId: "unsplash:" + id, likedAt: Date(timeIntervalSince1970: Double(n)), updatedAt: Date()).insert(db)
                try PhotoFileStore.record(db, PhotoFileStore.File(
                    photoId: "unsplash:" + id, variant: "regular", path: "library/unsplash/\(id).regular.jpg", inLibrary: true, bytes: 1,
                    checksum: nil, createdAt: Date(), lastAccessAt: Date()))
            }
            try PerceptualHashQuery.set(db, hash: 0b1111_0000, photoId: "unsplash:a")
            try PerceptualHashQuery.set(db, hash: UInt64.max, photoId: "unsplash:b")
        }
    }

    /// c is a's near twin (one bit apart), d is like nothing, e's file cannot be read.
    static let hashes: [String: UInt64] = ["c": 0b1111_0001, "d": 0x00FF_00FF_00FF_0000]

    /// The files the scanner asked to hash, in order.
    final class Asked: Sendable {
        let ids = Mutex<[String]>([])
        var all: [String] { ids.withLock { $0 } }
    }

    final class Flag: Sendable {
        let value = Mutex(false)
        func set(_ on: Bool) { value.withLock { $0 = on } }
        var isOn: Bool { value.withLock { $0 } }
    }

    func scanner(hashed: Asked, downloading: Flag = Flag(), patience: Duration = .seconds(30)) -> DuplicateScanner {
        DuplicateScanner(
            store: store, dataDirectory: dir.path, threshold: 4,
            hash: { path in
                let id = String(path.split(separator: "/").last!.split(separator: ".").first!)
                hashed.ids.withLock { $0.append(id) }
                return Self.hashes[id].map(PerceptualHash.init(value:))
            },
            accountId: { "u" }, transfersActive: { downloading.isOn }, patience: patience, settleFor: .zero, logger: Logger(label: "test"))
    }

    func storedHashes() throws -> [String: UInt64] {
        try store.read { db in
            var found: [String: UInt64] = [:]
            for id in ["a", "b", "c", "d", "e"] { found[id] = try PerceptualHashQuery.hash(db, photoId: "unsplash:" + id) }
            return found
        }
    }

    @Test func arrivalsAreHashedInBatchesAndTheirNeighboursFound() async throws {
        let hashed = Asked()
        let scanner = scanner(hashed: hashed)
        for id in ["c", "d", "e"] { scanner.arrived(photoId: "unsplash:" + id, path: dir.path + "/library/unsplash/\(id).regular.jpg") }
        #expect(await scanner.scanWaiting(batchSize: 2) == 2)
        #expect(hashed.all == ["c", "d", "e"])
        #expect(try storedHashes() == ["a": 0b1111_0000, "b": UInt64.max, "c": 0b1111_0001, "d": 0x00FF_00FF_00FF_0000])
        let near = try DuplicateFinder.record([("unsplash:c", PerceptualHash(value: 0b1111_0001))], accountId: "u", threshold: 4, store: store)
        #expect(near["unsplash:c"]?.map(\.id) == ["unsplash:a"])
        #expect(await scanner.scanWaiting() == 0, "nothing left waiting")
    }

    /// Files recorded while no scanner finished (a stop, a crash) are hashed at the next start; one
    /// that cannot be hashed is tried again then, and nothing already hashed is hashed again.
    @Test func filesLeftUnhashedByAStopAreHashedAtTheStart() async throws {
        let hashed = Asked()
        let scanner = scanner(hashed: hashed)
        scanner.queueUnhashed()
        #expect(await scanner.scanWaiting() == 2)
        #expect(Set(hashed.all) == ["c", "d", "e"])
        #expect(try storedHashes()["c"] == 0b1111_0001 && storedHashes()["e"] == nil)
        let again = Asked()
        let next = self.scanner(hashed: again)
        next.queueUnhashed()
        _ = await next.scanWaiting()
        #expect(again.all == ["e"])
    }

    /// Hashing decodes whole images: it waits while files download, starts when they end, and waits no
    /// longer than its patience (a stalled transfer must not hold it off for good).
    @Test func hashingWaitsForTheDownloadsButNotForever() async throws {
        let hashed = Asked(), downloading = Flag()
        downloading.set(true)
        let scanner = scanner(hashed: hashed, downloading: downloading, patience: .seconds(1))
        let running = Task { try await scanner.run() }
        defer { running.cancel() }
        // c, d and e were recorded unhashed: queued at the start, held while files download.
        try await Task.sleep(for: .milliseconds(300))
        #expect(hashed.all.isEmpty)
        downloading.set(false)
        scanner.transfersMayHaveEnded()
        let all = try await eventually(tries: 500, every: .milliseconds(20)) { hashed.all } until: { $0.count == 3 }
        #expect(Set(all) == ["c", "d", "e"])
        downloading.set(true)
        let clock = ContinuousClock.now
        scanner.arrived(photoId: "unsplash:c", path: dir.path + "/library/unsplash/c.regular.jpg")
        let later = try await eventually(tries: 500, every: .milliseconds(20)) { hashed.all } until: { $0.count == 4 }
        #expect(later.count == 4, "hashed beside a transfer that never ends, after the patience")
        #expect(ContinuousClock.now - clock >= .seconds(1))
    }
}
