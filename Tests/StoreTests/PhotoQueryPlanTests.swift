import Foundation
import GRDB
import Library
import Shared
@testable import Store
import Testing
import TestSupport

/// `photos.list` answers every filter and sort as the plain query over the joined tables would, for
/// every page, and by searching indexes: no statement reads a whole table, no count walks a whole index.
@Suite struct PhotoQueryPlanTests {
    let dir = TemporaryDirectory()
    let library: PhotoLibrary
    let likes: LikeActions

    /// Blue, red and NASA photos; liked, unliked, liked elsewhere, liked and dismissed; edited, with a
    /// deleted edit; a like-time tie; one photo with no creation time.
    init() throws {
        let store = try Store(path: dir.file("s.sqlite"))
        library = PhotoLibrary(store: store)
        likes = LikeActions(store: store)
        var undated = PhotoFixtures.photo("undated", title: "Blue hour", color: "#2244AA", fetched: 9)
        undated.createdAt = nil
        try library.upsert([
            PhotoFixtures.photo("lake", title: "A blue lake", color: "#2C5A8C", tags: ["water"], created: 10, fetched: 1),
            PhotoFixtures.photo("rose", title: "Red rose", color: "#CC1111", created: 30, fetched: 2),
            PhotoFixtures.photo("sea", title: "Sea at dusk", color: "#1F4FA0", created: 20, fetched: 3),
            PhotoFixtures.photo("PIA1", source: .nasa, title: "Blue marble", color: "#1F4FA0", created: 5, fetched: 4),
            PhotoFixtures.photo("PIA2", source: .nasa, title: "Mars", color: "#A0522D", created: 6, fetched: 5),
            PhotoFixtures.photo("gone", title: "Dismissed blue sky", color: "#3366CC", created: 7, fetched: 6, dismissed: true),
            PhotoFixtures.photo("kept", title: "Liked then dismissed", color: "#3366CC", created: 8, fetched: 7),
            PhotoFixtures.photo("fern", title: "Green fern", color: "#228B22", created: 30, fetched: 8),
            undated,
        ])
        try store.write { db in
            try PhotoFixtures.insertUnstamped(PhotoFixtures.like("unsplash:lake", at: 100), db)
            try PhotoFixtures.insertUnstamped(PhotoFixtures.like("unsplash:sea", at: 200), db)
            try PhotoFixtures.insertUnstamped(PhotoFixtures.like("nasa:PIA1", at: 200), db)
            try PhotoFixtures.insertUnstamped(PhotoFixtures.like("unsplash:rose", at: 300, unliked: true), db)
            try PhotoFixtures.insertUnstamped(PhotoFixtures.like("nasa:PIA2", account: "someone-else", at: 400), db)
            try PhotoFixtures.insertUnstamped(PhotoFixtures.like("unsplash:kept", at: 500), db)
            try PhotoFixtures.insertUnstamped(PhotoFixtures.like("unsplash:undated", at: 50), db)
            for (id, photo, deleted) in [("e1", "unsplash:lake", false), ("e2", "unsplash:rose", false), ("e3", "unsplash:sea", true), ("e4", "unsplash:lake", false)] {
                let at = PhotoFixtures.epoch
                try EditRecord(id: id, accountId: "", photoId: photo, pipeline: "[]", path: nil, storagePath: nil, createdAt: at, updatedAt: at,
                               deletedAt: deleted ? at : nil).insert(db)
            }
        }
        _ = try likes.setDismissed(true, photoId: "unsplash:kept")
    }

    /// Every request the grid below makes: each filter absent, on and off, with every sort.
    static var requests: [PhotosListRequest] {
        var all: [PhotosListRequest] = []
        for liked in [nil, true, false] as [Bool?] {
            for edited in [nil, true, false] as [Bool?] {
                for dismissed in [nil, true] as [Bool?] {
                    for source in [nil, .nasa] as [PhotoSource?] {
                        for color in [nil, "blue"] as [String?] {
                            for text in [nil, "blue"] as [String?] {
                                for sort in PhotosListRequest.Sort.allCases {
                                    all.append(PhotosListRequest(
                                        liked: liked, edited: edited, dismissed: dismissed, source: source, color: color, text: text, sort: sort))
                                }
                            }
                        }
                    }
                }
            }
        }
        return all
    }

    /// The plain statement: every filter over the photos joined to their like, sorted, no index in mind.
    func reference(_ request: PhotosListRequest) throws -> [String] {
        var clauses = [request.dismissed == true ? "p.dismissed_at IS NOT NULL" : "p.dismissed_at IS NULL"]
        var arguments: [any DatabaseValueConvertible] = [""]
        if let liked = request.liked { clauses.append(liked ? "l.liked_at IS NOT NULL" : "l.liked_at IS NULL") }
        if let edited = request.edited {
            clauses.append((edited ? "" : "NOT ") + "EXISTS (SELECT 1 FROM edits e WHERE e.photo_id = p.id AND e.deleted_at IS NULL)")
        }
        if let source = request.source { clauses.append("p.source = ?"); arguments.append(source.rawValue) }
        if let color = request.color { clauses.append("p.color_bucket = ?"); arguments.append(color) }
        if let text = request.text {
            clauses.append("p.rowid IN (SELECT rowid FROM photos_fts WHERE photos_fts MATCH ?)")
            arguments.append(PhotoQuery.ftsMatch(text)!)
        }
        let order = switch request.sort ?? .fetchedDescending {
        case .createdAscending: "p.created_at ASC NULLS LAST, p.id"
        case .createdDescending: "p.created_at DESC NULLS LAST, p.id"
        case .likedAscending: "l.liked_at ASC NULLS LAST, p.id"
        case .likedDescending: "l.liked_at DESC NULLS LAST, p.id"
        case .fetchedAscending: "p.fetched_at ASC, p.id"
        case .fetchedDescending: "p.fetched_at DESC, p.id"
        }
        let sql = """
            SELECT p.id FROM photos p LEFT JOIN likes l ON l.photo_id = p.id AND l.account_id = ? AND l.deleted_at IS NULL
            WHERE \(clauses.joined(separator: " AND ")) ORDER BY \(order)
            """
        let bound = StatementArguments(arguments.map(\.databaseValue))
        return try library.store.read { db in try String.fetchAll(db, sql: sql, arguments: bound) }
    }

    @Test func everyFilterAndSortListsWhatThePlainQueryLists() throws {
        for request in Self.requests {
            let all = try reference(request)
            for (limit, offset) in [(100, 0), (2, 0), (2, 1), (2, 2), (3, 4), (1, all.count), (2, all.count + 1)] {
                var paged = request
                paged.limit = limit
                paged.offset = offset
                let got = try library.list(paged, accountId: "").decoded()
                #expect(got.photos.map(\.id) == Array(all.dropFirst(offset).prefix(limit)), "\(paged)")
                #expect(got.total == all.count, "\(paged)")
            }
        }
    }

    /// What a full scan looks like in `EXPLAIN QUERY PLAN`: a table read row by row ("SCAN p"), or, in a
    /// count, a walk of a whole index of photos or likes. A page may walk an index in its sort order: it
    /// stops at the limit. The edited filter walks the live edits' index: that is the set it asks for.
    static func fullScans(_ statement: QueryStatement) -> [String] {
        let isCount = statement.sql.hasPrefix("SELECT count(*)")
        return statement.plan.map { $0.trimmingCharacters(in: .whitespaces) }.filter { step in
            guard step.hasPrefix("SCAN "), !step.contains("VIRTUAL TABLE"), step != "SCAN CONSTANT ROW" else { return false }
            if !step.contains(" USING ") { return true }
            return isCount && !step.hasPrefix("SCAN e USING INDEX edits_photo")
        }
    }

    @Test func noStatementReadsAWholeTable() throws {
        var plans = 0
        for request in Self.requests {
            var explained = request
            explained.explain = true
            let statements = try #require(try library.list(explained, accountId: "").decoded().statements)
            #expect(!statements.isEmpty)
            for statement in statements {
                plans += 1
                #expect(Self.fullScans(statement).isEmpty, "\(request): \(statement.sql)\n\(statement.plan.joined(separator: "\n"))")
            }
        }
        #expect(plans >= Self.requests.count * 2)
    }

    @Test func theLikedAndColourListIsOneRangeOfTheLikesIndex() throws {
        let result = try library.list(PhotosListRequest(liked: true, color: "blue", sort: .likedDescending, explain: true), accountId: "").decoded()
        #expect(result.photos.map(\.id) == ["nasa:PIA1", "unsplash:sea", "unsplash:lake", "unsplash:undated"])
        let plans = try #require(result.statements).map { $0.plan.joined(separator: " | ") }
        #expect(plans.count == 2)
        #expect(plans.allSatisfy { $0.contains("likes_shown_color") }, "\(plans)")
        #expect(plans[1].contains("COVERING INDEX likes_shown_color"), "the count reads the index alone: \(plans[1])")
        #expect(!plans[0].contains("TEMP B-TREE FOR ORDER BY"), "the page comes in like order: \(plans[0])")
    }

    @Test func likedPhotosComeNewestLikeFirstUnlessAskedOtherwise() throws {
        #expect(try library.list(PhotosListRequest(liked: true), accountId: "").decoded().photos.map(\.id)
            == ["nasa:PIA1", "unsplash:sea", "unsplash:lake", "unsplash:undated"])
        #expect(try library.list(PhotosListRequest(liked: true, sort: .fetchedDescending), accountId: "").decoded().photos.map(\.id)
            == ["unsplash:undated", "nasa:PIA1", "unsplash:sea", "unsplash:lake"])
    }

    /// A text match and the edited photos name their rows, so they drive: the photos are looked up by
    /// rowid or id, never walked through an index of the dismissed state (nearly every photo). A text
    /// match alone is counted without reading a photo: the photos the match holds, less the dismissed
    /// ones among them, found from their own partial index. The full-text index is read once a request,
    /// however many statements use the match.
    @Test func aTextMatchAndTheEditedPhotosDriveTheirQueries() throws {
        let byRowid = "SEARCH p USING INTEGER PRIMARY KEY (rowid=?)", dismissedOnly = "SEARCH p USING COVERING INDEX photos_dismissed"
        for (request, lookups) in [
            (PhotosListRequest(text: "blue", explain: true), [byRowid, dismissedOnly]),
            (PhotosListRequest(dismissed: true, text: "blue", explain: true), [byRowid, dismissedOnly]),
            (PhotosListRequest(color: "blue", text: "blue", sort: .createdDescending, explain: true), [byRowid, byRowid]),
            (PhotosListRequest(edited: true, explain: true), Array(repeating: "SEARCH p USING INDEX sqlite_autoindex_photos_1 (id=?)", count: 2)),
        ] {
            let statements = try #require(try library.list(request, accountId: "").decoded().statements)
            let plans = statements.filter { $0.sql.hasPrefix("SELECT") }.map { $0.plan.map { $0.trimmingCharacters(in: .whitespaces) } }
            #expect(plans.count == lookups.count, "\(request)")
            #expect(statements.filter { $0.sql.contains("photos_fts") }.count == (request.text == nil ? 0 : 1), "\(request): \(statements.map(\.sql))")
            for lookup in lookups { #expect(plans.contains { $0.contains { $0.hasPrefix(lookup) } }, "\(request): \(plans)") }
            #expect(!plans.joined().contains("SEARCH p USING INDEX photos_shown_fetched (dismissed_at=?)"), "\(request): \(plans)")
        }
    }

    /// A text match alone whose photos are spread along the sort is walked from the sort key's index, a
    /// bounded stretch of it, each photo tested against the match; one clustered past the bound (photos
    /// fetched long ago, newest first) fills no page there and is looked up instead. Either way the page
    /// is the plain query's, through ties at the bound, photos with no creation time, and dismissed ones.
    @Test func aTextMatchIsWalkedAlongItsSortWhereThatPays() throws {
        try library.upsert((0..<400).map { n in
            var photo = PhotoFixtures.photo(
                "w\(n)", title: [n % 5 == 0 ? "spread" : "other", n < 40 ? "far" : "near"].joined(separator: " "),
                created: TimeInterval(1_000 - n / 3), fetched: TimeInterval(100 + n / 4), dismissed: n % 50 == 5)
            if n % 7 == 0 { photo.createdAt = nil }
            return photo
        })
        let walk = ["fetched_at": "SEARCH p USING INDEX photos_shown_fetched (dismissed_at=? AND fetched_at>?)",
                    "created_at": "SEARCH p USING INDEX photos_shown_created (dismissed_at=? AND created_at>?)"]
        let walkDown = walk.mapValues { $0.replacingOccurrences(of: ">?)", with: "<?)") }
        var walked = 0, lookedUp = 0
        for text in ["spread", "far", "near"] {
            for sort in [PhotosListRequest.Sort.fetchedDescending, .fetchedAscending, .createdDescending, .createdAscending] {
                let all = try reference(PhotosListRequest(text: text, sort: sort))
                for (limit, offset) in [(5, 0), (5, 3), (10, 20), (50, 0), (1, all.count - 1), (5, all.count)] {
                    let request = PhotosListRequest(text: text, sort: sort, limit: limit, offset: offset, explain: true)
                    let got = try library.list(request, accountId: "").decoded()
                    #expect(got.photos.map(\.id) == Array(all.dropFirst(offset).prefix(limit)), "\(request)")
                    #expect(got.total == all.count, "\(request)")
                    let plans = try #require(got.statements).map { $0.plan.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n") }
                    let key = sort == .fetchedAscending || sort == .fetchedDescending ? "fetched_at" : "created_at"
                    let descending = sort == .fetchedDescending || sort == .createdDescending
                    let walkedPlan = plans.firstIndex { $0.contains((descending ? walk : walkDown)[key]!) }
                    let lookedUpPlan = plans.lastIndex { $0.contains("SEARCH p USING INTEGER PRIMARY KEY (rowid=?)") && !$0.contains("photos_dismissed") }
                    if let walkedPlan, lookedUpPlan == nil || lookedUpPlan! < walkedPlan { walked += 1 } else { lookedUp += 1 }
                    if text == "spread", limit == 5, offset == 0 { #expect(walkedPlan != nil && lookedUpPlan == nil, "\(request): \(plans)") }
                    if text == "far", limit == 5, offset == 0, sort == .fetchedDescending {
                        #expect(walkedPlan != nil && lookedUpPlan! > walkedPlan!, "tried, then looked up: \(request): \(plans)")
                    }
                }
            }
        }
        #expect(walked > 10 && lookedUp > 10, "walked \(walked), looked up \(lookedUp)")
    }

    /// A like carries its photo's colour and dismissed state (SchemaV4's triggers): they stay equal to
    /// the photo's through every change of either.
    @Test func aLikeKeepsItsPhotosFacts() throws {
        func mismatches() throws -> Int {
            try library.store.read { db in
                try Int.fetchOne(db, sql: """
                    SELECT count(*) FROM likes l JOIN photos p ON p.id = l.photo_id
                    WHERE l.photo_dismissed <> (p.dismissed_at IS NOT NULL) OR l.photo_color IS NOT p.color_bucket
                    """) ?? -1
            }
        }
        #expect(try mismatches() == 0)
        _ = try likes.setDismissed(true, photoId: "unsplash:sea")
        _ = try likes.setDismissed(false, photoId: "unsplash:kept")
        #expect(try mismatches() == 0)
        try library.upsert([PhotoFixtures.photo("lake", title: "The lake, red now", color: "#CC1111", created: 10, fetched: 1)])
        #expect(try mismatches() == 0)
        _ = try likes.like(photoId: "unsplash:gone", accountId: "u")
        _ = try likes.unlike(photoId: "unsplash:lake", accountId: "")
        _ = try likes.like(photoId: "unsplash:lake", accountId: "")
        #expect(try mismatches() == 0)
        #expect(try library.list(PhotosListRequest(liked: true, dismissed: true), accountId: "u").decoded().photos.map(\.id) == ["unsplash:gone"])
        #expect(try library.list(PhotosListRequest(liked: true, color: "red"), accountId: "").decoded().photos.map(\.id) == ["unsplash:lake"])
    }

    /// A store from before v4 gets its likes' photo facts filled in when it migrates.
    @Test func likesFromBeforeTheMigrationLearnTheirPhotosFacts() throws {
        let path = dir.file("old.sqlite")
        try PhotoFixtures.oldStore(at: path, migratedUpTo: "v3 counters") { db in
            try PhotoFixtures.photo("a", color: "#2C5A8C").insert(db)
            try PhotoFixtures.photo("b", color: "#CC1111", dismissed: true).insert(db)
            try PhotoFixtures.insertUnstamped(PhotoFixtures.like("unsplash:a", at: 1), db)
            try PhotoFixtures.insertUnstamped(PhotoFixtures.like("unsplash:b", at: 2), db)
        }
        let store = try Store(path: path)
        let facts = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT photo_id, photo_dismissed, photo_color FROM likes ORDER BY photo_id")
                .map { "\($0["photo_id"] as String) \($0["photo_dismissed"] as Int) \($0["photo_color"] as String)" }
        }
        #expect(facts == ["unsplash:a 0 blue", "unsplash:b 1 red"])
        let list = try PhotoLibrary(store: store).list(PhotosListRequest(liked: true), accountId: "").decoded()
        #expect(list.photos.map(\.id) == ["unsplash:a"] && list.total == 1)
    }
}
