import Foundation
import GRDB
@testable import Store
import Shared
import Testing
import TestSupport

/// `PhotoFileStore.missing`: what the image queue fetches next, asked after every finished transfer.
@Suite struct MissingFilesTests {
    let dir = TemporaryDirectory()
    let store: Store

    /// Likes at 10…60 and edits at 25 and 70; "had" already has its file, "mine" is a local photo, "old"
    /// was unliked, "theirs" is another account's; "bare" (liked at 68, edited at 69) has no URLs yet,
    /// as a pulled like's photo before the pull's pass over the photos' rows.
    init() throws {
        store = try Store(path: dir.file("s.sqlite"))
        try store.write { db in
            for id in ["a", "b", "c", "d", "had", "old", "theirs", "edited"] {
                var photo = PhotoFixtures.photo(id)
                photo.urls = #"{"regular":"https://images.example/\#(id).jpg"}"#
                try photo.insert(db)
            }
            try PhotoFixtures.photo("bare").insert(db)
            try PhotoFixtures.like("unsplash:bare", account: "u", at: 68).insert(db)
            try Self.edit("e4", photo: "unsplash:bare", at: 69).insert(db)
            try PhotoFixtures.photo("mine", source: .local).insert(db)
            for (id, at) in [("unsplash:a", 10.0), ("unsplash:b", 20), ("unsplash:c", 30), ("unsplash:had", 40), ("local:mine", 50), ("unsplash:d", 60)] {
                try PhotoFixtures.like(id, account: "u", at: at).insert(db)
            }
            try PhotoFixtures.like("unsplash:old", account: "u", at: 65, unliked: true).insert(db)
            try PhotoFixtures.like("unsplash:theirs", account: "v", at: 66).insert(db)
            // "a" was edited after it was liked: it ranks by the edit. "edited" is edited, not liked, twice.
            try Self.edit("e1", photo: "unsplash:a", at: 25).insert(db)
            try Self.edit("e2", photo: "unsplash:edited", at: 5).insert(db)
            try Self.edit("e3", photo: "unsplash:edited", at: 70).insert(db)
            try PhotoFileStore.record(db, PhotoFileStore.File(
                photoId: "unsplash:had", variant: "regular", path: "library/unsplash/had.regular.jpg", inLibrary: true, bytes: 1,
                checksum: nil, createdAt: PhotoFixtures.epoch, lastAccessAt: PhotoFixtures.epoch))
        }
    }

    static func edit(_ id: String, photo: String, at offset: TimeInterval) -> EditRecord {
        let at = PhotoFixtures.epoch.addingTimeInterval(offset)
        return EditRecord(id: id, accountId: "u", photoId: photo, pipeline: "[]", path: nil, storagePath: nil, createdAt: at, updatedAt: at)
    }

    func missing(limit: Int) throws -> [String] {
        try store.read { db in try PhotoFileStore.missing(db, accountId: "u", variant: "regular", limit: limit).map(\.photoId) }
    }

    @Test func likedAndEditedPhotosWithoutTheirFileComeNewestChoiceFirst() throws {
        #expect(try missing(limit: 100) == ["unsplash:edited", "unsplash:d", "unsplash:c", "unsplash:a", "unsplash:b"])
    }

    /// The gallery's one question per picture: nil for a photo the store does not hold, no files for
    /// one that has none, its files for one that has.
    @Test func aPhotosFilesAreNoneOrItsOwnAndNilForNoSuchPhoto() throws {
        try store.read { db in
            #expect(try PhotoFileStore.files(db, ofPhoto: "unsplash:nope") == nil)
            #expect(try PhotoFileStore.files(db, ofPhoto: "unsplash:a") == [])
            let had = try #require(try PhotoFileStore.files(db, ofPhoto: "unsplash:had"))
            let listed = try PhotoFileStore.files(db, photoId: "unsplash:had")
            #expect(had.map(\.path) == ["library/unsplash/had.regular.jpg"] && had == listed)
        }
    }

    /// Each limit gives the head of the whole list: the merge of the two newest-first walks loses nothing.
    @Test func everyLimitIsTheHeadOfTheWholeList() throws {
        let all = try missing(limit: 100)
        for limit in 1...all.count { #expect(try missing(limit: limit) == Array(all.prefix(limit)), "limit \(limit)") }
    }

    /// The likes are walked through their index, newest first, and the walk stops at the limit: what a
    /// look costs does not grow with the library.
    @Test func theLikesAreWalkedThroughTheirIndex() throws {
        let plan = try store.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + PhotoFileStore.newestLikedMissing, arguments: ["u", "regular", 8])
                .map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("USING INDEX likes_recent") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "sorted by the index, not afterwards: \(plan)")
    }
}
