import Foundation
import GRDB
import Shared
import Store
@testable import Sync
import Supabase
import Testing
import TestSupport

/// A photo first heard of through a tombstone (no metadata on the server then) is a bare row; when the
/// server's metadata arrives later it fills the row in, so the photo's file can be downloaded.
@Suite struct ServerPhotosTests {
    let dir = TemporaryDirectory()

    @Test func aBareRowIsFilledInAndARichRowIsKept() throws {
        let store = try Store(path: dir.file("s.sqlite"))
        try store.write { db in
            #expect(try ServerPhotos.ensureBare("unsplash:bare", db: db, now: Date()))
            try PhotoRecord(source: .local, remoteId: "abc", title: "mine", metadata: #"{"path":"/p.jpg"}"#, fetchedAt: Date()).insert(db)
            let answer = try PulledRows.PhotosAnswer.check(db, """
                [{"photo_id":"unsplash:bare","title":"Lake","width":10,"height":20,"urls":{"regular":"https://cdn/x.jpg"}},
                 {"photo_id":"local:abc","title":"server's title","urls":null}]
                """)
            try PulledRows.fillBarePhotos(db, [answer], fetchedAt: Date(), addingUnknown: true)
            let bare = try #require(try PhotoRecord.fetchOne(db, key: "unsplash:bare"))
            #expect(bare.title == "Lake" && bare.urls?.contains("x.jpg") == true)
            #expect(try PhotoRecord.fetchOne(db, key: "local:abc")?.title == "mine", "an imported photo keeps its own metadata")
        }
    }
}
