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

            try await devstack.faults(#"[{"path": "/rest/v1/likes", "method": "POST", "status": 503, "times": 3}]"#)
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
