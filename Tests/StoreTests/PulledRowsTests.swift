import Foundation
import GRDB
import Shared
@testable import Store
import Testing
import TestSupport

/// A pulled page's photos written by one statement each (`PulledPage`): the same rows, the same
/// full-text index and counters as a statement per photo made, and nothing left staged.
@Suite struct PulledRowsTests {
    let dir = TemporaryDirectory()

    static func pulled(_ remoteId: String, title: String, urls: String? = #"{"thumb":"https://t/x"}"#) -> PulledPhoto {
        PulledPhoto(
            source: .unsplash, remoteId: remoteId, title: title, description: "by the water", authorName: "Ana", authorUrl: nil,
            width: 4000, height: 3000, color: "#336699", colorBucket: ColorBucket(hex: "#336699")?.rawValue, urls: urls, metadata: nil)
    }

    static func found(_ db: Database, _ text: String) throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT p.id FROM photos_fts JOIN photos p ON p.rowid = photos_fts.rowid WHERE photos_fts MATCH ? ORDER BY p.id
            """, arguments: [text])
    }

    @Test func aPageFillsItsBarePhotosKeepsRicherOnesAndAddsOnlyWhenAsked() throws {
        let store = try Store(path: dir.file("s.sqlite"))
        let now = PhotoFixtures.epoch
        try store.write { db throws in
            try PulledRows.insertBarePhotos(db, [(.unsplash, "bare"), (.unsplash, "rich"), (.unsplash, "bare")], fetchedAt: now)
            // A photo this device holds with its URLs keeps them: the bare insert leaves it, the fill too.
            try db.execute(sql: "UPDATE photos SET urls = '{\"thumb\":\"mine\"}', title = 'mine', dismissed_at = ? WHERE id = 'unsplash:rich'",
                           arguments: [now])
            try PulledRows.insertBarePhotos(db, [(.unsplash, "rich")], fetchedAt: now)
        }
        let page = [
            Self.pulled("bare", title: "lake sunset"), Self.pulled("bare", title: "second copy"), Self.pulled("rich", title: "theirs"),
            Self.pulled("unknown", title: "mountain"),
        ]
        try store.write { db in try PulledRows.fillBarePhotos(db, page, fetchedAt: now, addingUnknown: false) }
        try store.read { db throws in
            let rows = try Row.fetchAll(db, sql: "SELECT id, title, urls, color_bucket, dismissed_at IS NOT NULL AS dismissed FROM photos ORDER BY id")
            #expect(rows.map { $0["id"] as String } == ["unsplash:bare", "unsplash:rich"])
            #expect(rows[0]["title"] as String? == "lake sunset")
            #expect(rows[0]["urls"] as String? == #"{"thumb":"https://t/x"}"#)
            #expect(rows[0]["color_bucket"] as String? == ColorBucket(hex: "#336699")?.rawValue)
            #expect(rows[1]["title"] as String? == "mine")
            #expect(rows[1]["dismissed"] as Bool == true)
            #expect(try Self.found(db, "lake") == ["unsplash:bare"])
            #expect(try Self.found(db, "second").isEmpty)
            #expect(try Self.found(db, "theirs").isEmpty)
            #expect(try Int.fetchOne(db, sql: "SELECT value FROM counters WHERE name = 'photos'") == 2)
        }
        // The staging tables are the writer's own.
        try store.write { db throws in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM temp.pulled_photos") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM temp.pulled_bare") == 0)
        }
        try store.write { db in try PulledRows.fillBarePhotos(db, page, fetchedAt: now, addingUnknown: true) }
        try store.read { db throws in
            #expect(try String.fetchAll(db, sql: "SELECT id FROM photos ORDER BY id") == ["unsplash:bare", "unsplash:rich", "unsplash:unknown"])
            #expect(try Self.found(db, "mountain") == ["unsplash:unknown"])
            #expect(try Self.found(db, "lake") == ["unsplash:bare"])
            #expect(try Int.fetchOne(db, sql: "SELECT value FROM counters WHERE name = 'photos'") == 3)
        }
    }

    /// The fill finds each staged photo by its key: a page costs its own rows, not the store's.
    @Test func theFillSearchesThePhotosByKey() throws {
        let store = try Store(path: dir.file("s.sqlite"))
        try store.write { db throws in
            try PulledRows.fillBarePhotos(db, [Self.pulled("a", title: "lake")], fetchedAt: PhotoFixtures.epoch, addingUnknown: false)
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + PulledRows.fillStaged, arguments: [PhotoFixtures.epoch])
                .map { $0["detail"] as String }
            #expect(plan.contains { $0.hasPrefix("SEARCH photos USING") }, "\(plan)")
            #expect(!plan.contains { $0.hasPrefix("SCAN photos") }, "\(plan)")
        }
    }

    /// A page whose transaction fails leaves nothing staged for the next: the staged rows roll back with it.
    @Test func aFailedPageLeavesNothingStaged() throws {
        let store = try Store(path: dir.file("s.sqlite"))
        struct Refused: Error {}
        try store.write { db in try PulledRows.fillBarePhotos(db, [Self.pulled("before", title: "river")], fetchedAt: PhotoFixtures.epoch, addingUnknown: true) }
        #expect(throws: Refused.self) {
            try store.write { db throws in
                try PulledRows.insertBarePhotos(db, [(.unsplash, "a")], fetchedAt: PhotoFixtures.epoch)
                try PulledRows.fillBarePhotos(db, [Self.pulled("a", title: "lake")], fetchedAt: PhotoFixtures.epoch, addingUnknown: false)
                try db.execute(sql: "INSERT INTO temp.pulled_photos (id, source, remote_id) VALUES ('unsplash:left', 'unsplash', 'left')")
                throw Refused()
            }
        }
        try store.write { db throws in
            #expect(try String.fetchAll(db, sql: "SELECT id FROM photos") == ["unsplash:before"])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM temp.pulled_photos") == 0)
        }
    }
}
