import Foundation
import GRDB
import Shared
import SplashClient
import Store
import Testing
import TestSupport

/// Signed out, likes are the guest's: kept, listed, never pushed; at sign-up or sign-in they are
/// brought into the account only when asked, then pushed once (issue 20, item 1), against devstack.
@Suite(.serialized, .devstack) struct GuestSyncTests {
    /// The server's likes of the account `email`: photo id → tombstoned?
    static func serverLikes(_ daemon: Splashd, email: String) async throws -> [String: Bool] {
        let devstack = try #require(daemon.devstack)
        let users = try await devstack.serviceRead("profiles?select=id&email=eq.\(email)")
        let userID = try #require(users.first?["id"] as? String)
        let rows = try await devstack.serviceRead("likes?select=photo_id,deleted_at&user_id=eq.\(userID)")
        #expect(Set(rows.map { $0["photo_id"] as? String }).count == rows.count, "a like is on the server twice")
        return Dictionary(rows.map { ($0["photo_id"] as? String ?? "?", !($0["deleted_at"] is NSNull)) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func theGuestsLikesAdoptedAtSignUpReachTheServerOnce() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let ids = try daemon.seedPhotos(5, prefix: "guest")
            for id in ids.prefix(3) { #expect(try await daemon.send(PhotosLikeRequest(id: id)).queued == false) }
            #expect(try await daemon.send(StatusRequest()).library.liked == 3)
            #expect(try await daemon.send(GuestStatusRequest()) == GuestCounts(likes: 3, edits: 0))
            let email = uniqueEmail("guest")
            let signedUp = try await daemon.send(
                SignupRequest(email: email, password: Splashd.password, username: uniqueUsername(), adoptGuest: true))
            #expect(signedUp.adopted == GuestCounts(likes: 3, edits: 0) && signedUp.guest == nil)
            #expect(try await daemon.syncUntilDrained().drained)
            #expect(try await Self.serverLikes(daemon, email: email) == Dictionary(uniqueKeysWithValues: ids.prefix(3).map { ($0, false) }))
            #expect(try await daemon.send(GuestStatusRequest()) == GuestCounts(likes: 0, edits: 0))
        }
    }

    /// Not adopted, the guest's likes stay on this machine as the guest's: the account pushes none of
    /// them, and signed out again they are listed as before. Adopted later with guest.adopt.
    @Test func notAdoptedTheGuestsLikesAreNeverPushedAndNotLost() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let ids = try daemon.seedPhotos(4, prefix: "kept")
            for id in ids.prefix(2) { _ = try await daemon.send(PhotosLikeRequest(id: id)) }
            let email = uniqueEmail("kept")
            let signedUp = try await daemon.send(SignupRequest(email: email, password: Splashd.password, username: uniqueUsername()))
            #expect(signedUp.adopted == nil && signedUp.guest == GuestCounts(likes: 2, edits: 0))
            _ = try await daemon.send(PhotosLikeRequest(id: ids[3]))
            #expect(try await daemon.syncUntilDrained().drained)
            #expect(try await Self.serverLikes(daemon, email: email) == [ids[3]: false], "only the account's own like")
            #expect(try await daemon.send(StatusRequest()).library.liked == 1)

            _ = try await daemon.send(LogoutRequest())
            let guestLikes = try await daemon.send(PhotosListRequest(liked: true)).photos.map(\.id)
            #expect(Set(guestLikes) == Set(ids.prefix(2)))

            _ = try await daemon.send(LoginRequest(email: email, password: Splashd.password, adoptGuest: false))
            #expect(try await daemon.send(GuestAdoptRequest()).adopted == GuestCounts(likes: 2, edits: 0))
            #expect(try await daemon.syncUntilDrained().drained)
            #expect(Set(try await Self.serverLikes(daemon, email: email).keys) == Set(ids.prefix(2) + [ids[3]]))
        }
    }

    /// 1,200 guest likes adopted at sign-up; splashd dies by SIGKILL as the first batch of 500 commits
    /// (crash point guest.batch_adopted). Started again, it goes on with the adoption by itself: the
    /// server ends with each like once, the guest with none.
    @Test func anAdoptionKilledMidwayGoesOnAtTheNextStart() async throws {
        try await SplashdFixture.run { fixture in
            let crashing = try await fixture.splashd(.init(sources: true, environment: ["SPLASHD_TEST_CRASH_AT": "guest.batch_adopted"]))
            let directory = crashing.directory
            let ids = try crashing.seedPhotos(1_200, prefix: "many")
            let store = try Store(path: crashing.databasePath)
            try store.write { db in
                for id in ids {
                    try LikeRecord(accountId: GuestRows.accountId, photoId: id, likedAt: Date(), updatedAt: Date()).insert(db)
                }
            }
            #expect(try await crashing.send(GuestStatusRequest()).likes == 1_200)
            let email = uniqueEmail("many")
            // The answer is lost with the process.
            _ = try? await crashing.send(SignupRequest(email: email, password: Splashd.password, username: uniqueUsername(), adoptGuest: true))
            await crashing.kill9()
            let guestLeft = try store.read { db in try GuestRows.counts(db) }.likes
            #expect(guestLeft == 700, "one batch of 500 was adopted before the crash point")

            let daemon = try await fixture.splashd(.init(directory: directory, sources: true, account: .existing(email: email)))
            #expect(try await daemon.send(GuestStatusRequest()).likes == 0, "the adoption went on at the start")
            #expect(try await daemon.syncUntilDrained(timeout: .seconds(60)).drained)
            let server = try await Self.serverLikes(daemon, email: email)
            #expect(server.count == 1_200 && Set(server.keys) == Set(ids))
            #expect(try store.integrityCheck() == ["ok"])
        }
    }
}
