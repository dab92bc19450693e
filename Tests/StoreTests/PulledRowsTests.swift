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

    /// A row of the server's photos as PostgREST writes it.
    static func row(_ remoteId: String, title: String, urls: String = #"{"thumb":"https://t/x"}"#) -> String {
        #"{"photo_id":"unsplash:"# + remoteId + #"","title":""# + title
            + ##"","description":"by the water","author_name":"Ana","author_url":null,"color":"#336699","width":4000,"height":3000,"urls":"##
            + urls + #","original_sha256":null,"original_note":null,"updated_at":"2026-11-30T06:00:00.123456+00:00"}"#
    }

    static func answer(_ db: Database, _ rows: [String]) throws -> PulledRows.PhotosAnswer {
        try PulledRows.PhotosAnswer.check(db, "[" + rows.joined(separator: ",") + "]")
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
            Self.row("bare", title: "lake sunset"), Self.row("bare", title: "second copy"), Self.row("rich", title: "theirs"),
            Self.row("unknown", title: "mountain"), #"{"photo_id":"flickr:1","title":"a newer device's source"}"#,
        ]
        try store.write { db throws in
            let checked = try Self.answer(db, page)
            #expect(checked.rows == 5 && checked.last?.photoId == "flickr:1" && checked.last?.updatedAt == nil)
            try PulledRows.fillBarePhotos(db, [checked], fetchedAt: now, addingUnknown: false)
        }
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
        try store.write { db in try PulledRows.fillBarePhotos(db, [try Self.answer(db, page)], fetchedAt: now, addingUnknown: true) }
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
            try PulledRows.fillBarePhotos(db, [try Self.answer(db, [Self.row("a", title: "lake")])], fetchedAt: PhotoFixtures.epoch, addingUnknown: false)
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
        try store.write { db in
            try PulledRows.fillBarePhotos(db, [try Self.answer(db, [Self.row("before", title: "river")])], fetchedAt: PhotoFixtures.epoch, addingUnknown: true)
        }
        #expect(throws: Refused.self) {
            try store.write { db throws in
                try PulledRows.insertBarePhotos(db, [(.unsplash, "a")], fetchedAt: PhotoFixtures.epoch)
                try PulledRows.fillBarePhotos(db, [try Self.answer(db, [Self.row("a", title: "lake")])], fetchedAt: PhotoFixtures.epoch, addingUnknown: false)
                try db.execute(sql: "INSERT INTO temp.pulled_photos (id, source, remote_id) VALUES ('unsplash:left', 'unsplash', 'left')")
                throw Refused()
            }
        }
        try store.write { db throws in
            #expect(try String.fetchAll(db, sql: "SELECT id FROM photos") == ["unsplash:before"])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM temp.pulled_photos") == 0)
        }
    }

    /// A photo's columns as the store keeps them, read by SQLite from the answer: URLs as their object,
    /// another device's original as PhotoMetadata's JSON, the colour's bucket.
    @Test func aRowReadsAsTheStoreKeepsAPhoto() throws {
        let store = try Store(path: dir.file("s.sqlite"))
        let sha = String(repeating: "ab", count: 32)
        let row = Self.row("a", title: #"Åsa's \"lake\""#, urls: #"{"regular":"https:\/\/images.example\/a.jpg","thumb":"https://t/a"}"#)
            .replacingOccurrences(of: #""original_sha256":null,"original_note":null"#, with: #""original_sha256":""# + sha + #"","original_note":null"#)
        try store.write { db in
            try PulledRows.fillBarePhotos(db, [try Self.answer(db, [row])], fetchedAt: PhotoFixtures.epoch, addingUnknown: true)
        }
        let photo = try #require(try store.read { db in try PhotoRecord.fetchOne(db, key: "unsplash:a") })
        #expect(photo.title == #"Åsa's "lake""# && photo.description == "by the water" && photo.authorName == "Ana" && photo.authorUrl == nil)
        #expect(photo.width == 4000 && photo.height == 3000 && photo.color == "#336699")
        #expect(photo.colorBucket == ColorBucket(hex: "#336699")?.rawValue)
        let urls = try JSONDecoder().decode([String: String].self, from: Data(try #require(photo.urls).utf8))
        #expect(urls == ["regular": "https://images.example/a.jpg", "thumb": "https://t/a"])
        #expect(PhotoMetadata.decode(photo.metadata) == PhotoMetadata(originalSha256: sha))
        #expect(photo.metadata == PhotoMetadata(originalSha256: sha).json, "the same text as the store writes for it")
        #expect(photo.fetchedAt == PhotoFixtures.epoch)
    }

    /// An answer this version cannot read is refused whole, with what is wrong in it, and nothing of it
    /// is written.
    @Test func anAnswerItCannotReadIsRefusedWithItsReason() throws {
        let store = try Store(path: dir.file("s.sqlite"))
        let cases: [(String, String)] = [
            ("{}", "the answer is not a JSON array"),
            ("[1", "the answer is not a JSON array"),
            ("[[]]", "a row is not an object"),
            (#"[{"title":"no id"}]"#, "a row names no photo"),
            ("[" + Self.row("a", title: "fine") + "," + Self.row("b", title: "wide").replacingOccurrences(of: #""width":4000"#, with: #""width":"wide""#) + "]",
             "a row has a column of the wrong type"),
            ("[" + Self.row("c", title: "x", urls: #"{"thumb":7}"#) + "]", "a row has URLs that are not text"),
            ("[" + Self.row("d", title: "x", urls: #"["https://t/d"]"#) + "]", "a row has a column of the wrong type"),
        ]
        for (text, reason) in cases {
            #expect(throws: PulledRowsError.malformed(reason), "\(text)") {
                try store.read { db in _ = try PulledRows.PhotosAnswer.check(db, text) }
            }
        }
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM photos") } == 0)
    }
}
