import Foundation
import Shared
import SplashClient
import Testing
import TestSupport

/// Two daemons with separate state directories, signed in to the same account: what one does, the
/// other shows after its next pull.
@Suite(.serialized, .devstack) struct PullTests {
    func secondDevice(of first: Splashd, in fixture: SplashdFixture) async throws -> Splashd {
        let second = try await fixture.splashd(.sync(email: first.account))
        _ = try await second.client.send(LoginRequest(email: first.account, password: Splashd.password))
        return second
    }

    func liked(_ daemon: Splashd) async throws -> Set<String> {
        Set(try await daemon.client.send(PhotosListRequest(liked: true, limit: 1000)).photos.map(\.id))
    }

    @Test func twoDevicesConverge() async throws {
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync())
            let b = try await secondDevice(of: a, in: fixture)
            let ids = try a.seedPhotos(10, prefix: "conv")

            for id in ids[0..<6] { _ = try await a.client.send(PhotosLikeRequest(id: id)) }
            _ = try await a.syncUntilDrained()
            _ = try await b.syncUntilDrained()
            #expect(try await liked(b) == Set(ids[0..<6]), "B shows A's likes after its pull")
            #expect(try await b.client.send(StatusRequest()).lastSyncAt != nil, "status says when it last synced")
            let shown = try await b.client.send(PhotosListRequest(liked: true, text: "Photo", limit: 100))
            #expect(shown.total == 6, "the photos' metadata came with them")

            for id in ids[0..<2] { _ = try await a.client.send(PhotosUnlikeRequest(id: id)) }
            let bLikes = try b.seedPhotos(3, prefix: "fromb")
            for id in bLikes { _ = try await b.client.send(PhotosLikeRequest(id: id)) }
            _ = try await a.syncUntilDrained()
            _ = try await b.syncUntilDrained()
            _ = try await a.syncUntilDrained()
            let expected = Set(ids[2..<6]).union(bLikes)
            #expect(try await liked(a) == expected)
            #expect(try await liked(b) == expected)
        }
    }

    /// A new device signing in to an account: the newest screenful of likes comes first, with its
    /// photos (here the pull of every row is refused, so only they can be there); then every like, its
    /// photo's metadata read from the photos' rows a page at a time, not asked for by id. A photo whose
    /// row the server changed before the cursor of an earlier pull is asked for by id.
    @Test func aNewDeviceGetsTheNewestScreenFirstAndEveryPhotoFromThePhotosRows() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync())
            let ids = try a.seedPhotos(120, prefix: "join")
            for id in ids { _ = try await a.client.send(PhotosLikeRequest(id: id)) }
            #expect(try await a.syncUntilDrained().drained)

            try await devstack.faults(#"[{"path": "/rest/v1/likes?*updated_at=gte*", "method": "GET", "status": 503}]"#)
            let photosAsked = try await devstack.requests(path: "/rest/v1/photos")
            let b = try await secondDevice(of: a, in: fixture)
            let newest = try await eventually(tries: 50, every: .milliseconds(100)) {
                try await b.client.send(PhotosListRequest(liked: true, text: "Photo", limit: 1000)).photos.map(\.id)
            } until: { $0.count >= PhotosListRequest.defaultLimit }
            #expect(Set(newest) == Set(ids.suffix(PhotosListRequest.defaultLimit)), "the newest likes, with their titles")
            #expect(try await liked(b).count == PhotosListRequest.defaultLimit, "and nothing else while the rest is refused")

            try await devstack.clearFaults()
            _ = try await b.syncUntilDrained()
            let all = try await b.client.send(PhotosListRequest(liked: true, text: "Photo", limit: 1000))
            #expect(all.total == ids.count, "every like, each photo with its metadata")
            // The newest screen's by id (one request), then the photos' rows in one page: 120 photos asked
            // for by id, 50 to a request, were three more.
            #expect(try await devstack.requests(path: "/rest/v1/photos") - photosAsked <= 2)

            // A photo row the server changed before B's cursor over the photos' rows: asked for by id.
            let late = try a.seedPhotos(3, prefix: "late")
            for id in late { _ = try await a.client.send(PhotosLikeRequest(id: id)) }
            #expect(try await a.syncUntilDrained().drained)
            _ = try await devstack.adminSQL("""
                set session_replication_role = replica;
                update public.photos set updated_at = '2001-01-01' where photo_id = '\(late[0])'
                """)
            _ = try await b.syncUntilDrained()
            let after = try await b.client.send(PhotosListRequest(liked: true, text: "Photo", limit: 1000))
            #expect(after.total == ids.count + late.count, "the late photos too, the one passed over included")
        }
    }

    /// The profile comes down with every pull, not only at sign-in: a username set on A shows on B
    /// after B's next sync, without asking for a refresh.
    @Test func aProfileChangeReachesTheOtherDevice() async throws {
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync())
            let b = try await secondDevice(of: a, in: fixture)
            let name = "renamed" + String(Int.random(in: 100_000..<999_999))
            _ = try await a.client.send(SetUsernameRequest(username: name))
            let seen = try await eventually(tries: 40, every: .milliseconds(250)) {
                _ = try await b.syncUntilDrained()
                return try await b.client.send(ProfileGetRequest()).profile.username ?? ""
            } until: { $0 == name }
            #expect(seen == name, "B shows A's new username after its pulls")
        }
    }

    /// A device's pull passes over what it pushed itself, the likes it acted on and the photos' rows it
    /// wrote (the push's answer told it what the server kept): after A sends 30 likes, every page its pull
    /// reads of either table is empty. A like B makes is still read, with its photo.
    @Test func aDevicesPullReadsNothingOfItsOwnPush() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync())
            let ids = try a.seedPhotos(30, prefix: "echo")
            func served(_ table: String) async throws -> (pages: Int, bytes: Int) {
                let served = try await devstack.served(path: "GET /rest/v1/\(table)")
                return (served.answers, served.bytes)
            }
            #expect(try await a.syncUntilDrained().drained)
            let before = (likes: try await served("likes"), photos: try await served("photos"))
            for id in ids { _ = try await a.client.send(PhotosLikeRequest(id: id)) }
            #expect(try await a.syncUntilDrained().drained)
            #expect(try await a.client.send(SyncNowRequest(wait: true, timeoutSeconds: 10)).outcome == .drained)
            for (table, start) in [("likes", before.likes), ("photos", before.photos)] {
                let now = try await served(table)
                let pages = now.pages - start.pages
                #expect(pages >= 2 && now.bytes - start.bytes == 2 * pages, "\(table): \(pages) pages, \(now.bytes - start.bytes) bytes: each `[]`")
            }
            #expect(try await a.serverLikes().count == 30)

            let b = try await secondDevice(of: a, in: fixture)
            let fromB = try #require(try b.seedPhotos(1, prefix: "echob").first)
            _ = try await b.client.send(PhotosLikeRequest(id: fromB))
            #expect(try await b.syncUntilDrained().drained)
            _ = try await a.syncUntilDrained()
            #expect(try await liked(a) == Set(ids + [fromB]))
            #expect(try await a.client.send(PhotosListRequest(liked: true, text: "Photo", limit: 100)).total == 31, "B's photo came with its row")
        }
    }

    /// B unlikes while its push fails; its pull still sees the server's like. B's own pending change
    /// wins, reaches the server once the server answers again, and A follows.
    @Test func aPendingLocalChangeWinsOverThePull() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync())
            let b = try await secondDevice(of: a, in: fixture)
            let ids = try a.seedPhotos(2, prefix: "win")
            for id in ids { _ = try await a.client.send(PhotosLikeRequest(id: id)) }
            _ = try await a.syncUntilDrained()
            _ = try await b.syncUntilDrained()
            #expect(try await liked(b) == Set(ids))

            try await devstack.faults(#"[{"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 503, "times": 3}]"#)
            _ = try await b.client.send(PhotosUnlikeRequest(id: ids[0]))
            _ = try await b.client.send(SyncNowRequest(wait: true, timeoutSeconds: 5))
            #expect(try await liked(b) == [ids[1]], "the pull must not undo a change still waiting to be sent")
            try await devstack.clearFaults()

            _ = try await b.syncUntilDrained(timeout: .seconds(60))
            _ = try await a.syncUntilDrained()
            #expect(try await liked(a) == [ids[1]])
            #expect(try await liked(b) == [ids[1]])
        }
    }
}
