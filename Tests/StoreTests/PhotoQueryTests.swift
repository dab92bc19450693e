import Foundation
import GRDB
import Library
import Shared
import Store
import Testing
import TestSupport

@Suite struct PhotoQueryTests {
    let dir = TemporaryDirectory()
    let library: PhotoLibrary

    init() throws {
        library = PhotoLibrary(store: try Store(path: dir.file("s.sqlite")))
        try library.upsert([
            PhotoFixtures.photo("lake", title: "A blue lake at dawn", author: "Ana Lima", color: "#2C5A8C", tags: ["water", "mountain"], created: 10, fetched: 1),
            PhotoFixtures.photo("rose", title: "Red rose", author: "Bruno", color: "#CC1111", created: 30, fetched: 2),
            PhotoFixtures.photo("sea", title: "Sea", author: "Ana Lima", color: "#1F4FA0", created: 20, fetched: 3),
            PhotoFixtures.photo("PIA123", source: .nasa, title: "Mars rover selfie", color: "#A0522D", created: 5, fetched: 4),
            PhotoFixtures.photo("gone", title: "Dismissed blue sky", color: "#3366CC", fetched: 5, dismissed: true),
        ])
        try library.store.write { db in
            try PhotoFixtures.like("unsplash:lake", at: 100).insert(db)
            try PhotoFixtures.like("unsplash:sea", at: 200).insert(db)
            try PhotoFixtures.like("unsplash:rose", at: 300, unliked: true).insert(db)
            try PhotoFixtures.like("nasa:PIA123", account: "someone-else", at: 400).insert(db)
        }
    }

    func ids(_ request: PhotosListRequest, account: String = "") throws -> [String] {
        try library.list(request, accountId: account).decoded().photos.map(\.id)
    }

    @Test func defaultListHidesDismissedAndSortsNewestFetchedFirst() throws {
        #expect(try ids(PhotosListRequest()) == ["nasa:PIA123", "unsplash:sea", "unsplash:rose", "unsplash:lake"])
    }

    @Test func likedMeansLikedByThisAccountAndNotUnliked() throws {
        #expect(try ids(PhotosListRequest(liked: true, sort: .likedDescending)) == ["unsplash:sea", "unsplash:lake"])
        #expect(try ids(PhotosListRequest(liked: true), account: "someone-else") == ["nasa:PIA123"])
        #expect(try ids(PhotosListRequest(liked: false, sort: .createdAscending)) == ["nasa:PIA123", "unsplash:rose"])
    }

    @Test func filtersByColourSourceAndDismissed() throws {
        #expect(try ids(PhotosListRequest(color: "blue", sort: .createdAscending)) == ["unsplash:lake", "unsplash:sea"])
        #expect(try ids(PhotosListRequest(source: .nasa)) == ["nasa:PIA123"])
        #expect(try ids(PhotosListRequest(dismissed: true)) == ["unsplash:gone"])
        #expect(try ids(PhotosListRequest(liked: true, color: "blue", sort: .likedDescending, limit: 1)) == ["unsplash:sea"])
    }

    @Test func fullTextSearchMatchesTitleTagsAndAuthorByPrefix() throws {
        #expect(try ids(PhotosListRequest(text: "lake")) == ["unsplash:lake"])
        #expect(try ids(PhotosListRequest(text: "mount")) == ["unsplash:lake"])
        #expect(try Set(ids(PhotosListRequest(text: "ana lima"))) == ["unsplash:lake", "unsplash:sea"])
        #expect(try ids(PhotosListRequest(text: "rover")) == ["nasa:PIA123"])
    }

    @Test(arguments: [#"") OR 1=1 --"#, #"'; DROP TABLE photos; --"#, "NEAR(a b)", "\"", "*", "title:lake", "ä ö ü"])
    func hostileTextIsJustText(text: String) throws {
        _ = try library.list(PhotosListRequest(text: text), accountId: "").decoded()
        #expect(try library.list(PhotosListRequest(), accountId: "").decoded().total == 4)
    }

    @Test func pagesAndTotals() throws {
        let first = try library.list(PhotosListRequest(sort: .createdAscending, limit: 2), accountId: "").decoded()
        let second = try library.list(PhotosListRequest(sort: .createdAscending, limit: 2, offset: 2), accountId: "").decoded()
        #expect(first.total == 4 && second.total == 4)
        #expect(first.photos.map(\.id) + second.photos.map(\.id) == ["nasa:PIA123", "unsplash:lake", "unsplash:sea", "unsplash:rose"])
        #expect(try library.list(PhotosListRequest(offset: 100), accountId: "").decoded().photos.isEmpty)
    }

    @Test func upsertNeverDuplicatesAndKeepsLocalDismissal() throws {
        var again = PhotoFixtures.photo("gone", title: "Renamed upstream", color: "#3366CC", fetched: 9)
        again.dismissedAt = nil
        try library.upsert([again, again])
        let rows = try library.store.read { db in try PhotoRecord.filter(Column("id") == "unsplash:gone").fetchAll(db) }
        #expect(rows.count == 1)
        #expect(rows.first?.title == "Renamed upstream")
        #expect(rows.first?.dismissedAt != nil)
        #expect(try ids(PhotosListRequest(dismissed: true, text: "renamed")) == ["unsplash:gone"])
    }

    @Test func countsReflectTheStore() throws {
        let counts = try library.counts(accountId: "")
        #expect(counts.library.photos == 5)
        #expect(counts.library.liked == 2)
        #expect(counts.library.dismissed == 1)
        #expect(counts.outbox == OutboxCounts(pending: 0, inFlight: 0, rejected: 0))
    }

    /// A page's photos are written by SQLite (`PhotoQuery.summaryJSON`) and sent as they are: byte for
    /// byte the encoder's JSON of the same result, for the values that trip JSON writers up — quotes,
    /// backslashes, slashes, control characters, non-ASCII, absent values, fractions of a second, dates
    /// before 1970 — and with the statements of an explained request.
    @Test func sqliteWritesEachPhotoAsTheEncoderDoes() throws {
        let dir = TemporaryDirectory()
        let library = PhotoLibrary(store: try Store(path: dir.file("json.sqlite")))
        let awkward = "Quote \" backslash \\ slash / tab \t newline \n controls \u{1} \u{1f} del \u{7f} é 😀 \u{2028}"
        let when = Date(timeIntervalSince1970: 1_795_000_000.75)
        let liked = Date(timeIntervalSince1970: 1_795_000_100.5)
        let before1970 = Date(timeIntervalSince1970: -315_619_199.5)
        try library.upsert([
            PhotoRecord(
                source: .unsplash, remoteId: "full", title: awkward, authorName: "Ana \"A\" Lima", width: 4000, height: 3000,
                color: "#2C5A8C", colorBucket: "blue", createdAt: before1970, fetchedAt: when),
            PhotoRecord(source: .nasa, remoteId: "bare", fetchedAt: when.addingTimeInterval(1)),
            PhotoRecord(source: .local, remoteId: "gone", title: "</script>", fetchedAt: when, dismissedAt: liked),
        ])
        try library.store.write { db in
            try LikeRecord(accountId: "", photoId: "unsplash:full", likedAt: liked, updatedAt: liked, deletedAt: nil).insert(db)
        }
        let shown = [
            PhotoSummary(id: "nasa:bare", source: .nasa, fetchedAt: when.addingTimeInterval(1)),
            PhotoSummary(
                id: "unsplash:full", source: .unsplash, title: awkward, author: "Ana \"A\" Lima", width: 4000, height: 3000,
                color: "#2C5A8C", colorBucket: "blue", createdAt: before1970, fetchedAt: when, likedAt: liked),
        ]
        let page = try library.list(PhotosListRequest(), accountId: "")
        let expected = try JSONCoding.encoder().encode(PhotosListResult(photos: shown, total: 2, limit: 50, offset: 0))
        #expect(String(decoding: page.json, as: UTF8.self) == String(decoding: expected, as: UTF8.self))

        let explained = try library.list(PhotosListRequest(dismissed: true, limit: 3, offset: 0, explain: true), accountId: "")
        let statements = try #require(try explained.decoded().statements)
        let gone = PhotoSummary(id: "local:gone", source: .local, title: "</script>", fetchedAt: when, dismissedAt: liked)
        let expectedExplained = try JSONCoding.encoder().encode(
            PhotosListResult(photos: [gone], total: 1, limit: 3, offset: 0, statements: statements))
        #expect(String(decoding: explained.json, as: UTF8.self) == String(decoding: expectedExplained, as: UTF8.self))
    }
}
