import Foundation
import GRDB
import Shared
import SplashClient
import Store
import Testing
import TestSupport

/// Signed out, likes are the guest's: kept, listed, never pushed; at sign-up or sign-in they are
/// brought into the account only when asked, then pushed once, against devstack.
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

    /// 10,000 guest likes adopted at sign-up (bad input); splashd dies by SIGKILL as the
    /// first batch of 500 commits (crash point guest.batch_adopted). Started again, it goes on with the
    /// adoption by itself: the server ends with each like once, the guest with none.
    @Test func anAdoptionKilledMidwayGoesOnAtTheNextStart() async throws {
        try await SplashdFixture.run { fixture in
            let crashing = try await fixture.splashd(.init(sources: true, environment: ["SPLASHD_TEST_CRASH_AT": "guest.batch_adopted"]))
            let directory = crashing.directory
            let ids = try crashing.seedPhotos(10_000, prefix: "many")
            let store = try Store(path: crashing.databasePath)
            try store.write { db in
                for id in ids {
                    try LikeRecord(accountId: GuestRows.accountId, photoId: id, likedAt: Date(), updatedAt: Date()).insert(db)
                }
            }
            #expect(try await crashing.send(GuestStatusRequest()).likes == 10_000)
            let email = uniqueEmail("many")
            // The answer is lost with the process.
            _ = try? await crashing.send(SignupRequest(email: email, password: Splashd.password, username: uniqueUsername(), adoptGuest: true))
            await crashing.kill9()
            let guestLeft = try store.read { db in try GuestRows.counts(db) }.likes
            #expect(guestLeft == 9_500, "one batch of 500 was adopted before the crash point")

            let daemon = try await fixture.splashd(.init(directory: directory, sources: true, account: .existing(email: email)))
            // The adoption goes on beside the start, which does not wait for it: the socket answers first.
            try await daemon.wait(for: "the adoption to go on by itself", tries: 600) { try await daemon.send(GuestStatusRequest()).likes == 0 }
            #expect(try await daemon.syncUntilDrained(timeout: .seconds(120)).drained)
            let server = try await Self.serverLikes(daemon, email: email)
            #expect(server.count == 10_000 && Set(server.keys) == Set(ids))
            #expect(try store.integrityCheck() == ["ok"])
        }
    }

    /// With no backend configured at all, splashd is a whole photo browser and editor: a search, a like
    /// whose file downloads, a preview and an edit of it, all as the guest; status lists each service it
    /// heard from as answering, and the backend as not configured.
    @Test func withNoBackendSplashdDownloadsPreviewsAndEdits() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(backend: false, sources: true))
            let found = try await daemon.send(PhotosSearchRequest(query: "lake", perPage: 3))
            let photo = try #require(found.photos.first)
            #expect(try await daemon.send(PhotosLikeRequest(id: photo.id)).guest == true)
            _ = try await daemon.waitForLibrary(files: 1)
            let preview = try await daemon.send(EditsPreviewRequest(id: photo.id, filters: [FilterStep(filter: "sepia")], size: 64))
            #expect(preview.jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
            let edit = try await daemon.send(EditsCreateRequest(id: photo.id, filters: [FilterStep(filter: "sepia")]))
            #expect(edit.state == "guest" && edit.path != nil)
            let status = try await daemon.send(StatusRequest())
            #expect(status.connectivity.reason == "no backend configured")
            let services = status.services ?? []
            #expect(services.contains { $0.service == "Unsplash" && $0.state == .up }, "\(services)")
            #expect(services.contains { $0.service.hasPrefix("127.0.0.1:") && $0.state == .up }, "the image host: \(services)")
        }
    }

    /// An image host that does not answer (nothing listens on its port) is listed down with the reason,
    /// and an edit waiting for an original from it says so at once, while the CDN that answers goes on
    /// downloading and the backend, up all along, is not the one blamed.
    @Test func anImageHostThatDoesNotAnswerIsDownOnItsOwn() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photos = try await daemon.seedCatalogue(count: 1)
            let nowhere = PhotoRecord(
                source: .nasa, remoteId: "nowhere1", title: "Nowhere", urls: #"{"regular":"http://127.0.0.1:9/nowhere.jpg"}"#, fetchedAt: Date())
            try Store(path: daemon.databasePath).write { db in try nowhere.insert(db) }
            _ = try await daemon.send(PhotosLikeRequest(id: nowhere.id))
            _ = try await daemon.send(PhotosLikeRequest(id: photos[0].id))
            try await daemon.wait(for: "the silent host to be known down") {
                try await daemon.send(StatusRequest()).services?.contains { $0.service == "127.0.0.1:9" && $0.state == .down } == true
            }
            _ = try await daemon.waitForLibrary(files: 1)
            let status = try await daemon.send(StatusRequest())
            let silent = try #require(status.services?.first { $0.service == "127.0.0.1:9" })
            #expect(silent.reason?.contains("curl 7") == true && silent.retryAt != nil, "\(silent)")
            let cdn = try #require(URL(string: photos[0].url)).port.map { "127.0.0.1:\($0)" }
            #expect(status.services?.contains { $0.service == cdn && $0.state == .up } == true, "\(String(describing: status.services))")
            #expect(status.connectivity.state != .offline, "the backend answers: \(status.connectivity)")
            let other = PhotoRecord(source: .nasa, remoteId: "nowhere2", urls: #"{"regular":"http://127.0.0.1:9/other.jpg"}"#, fetchedAt: Date())
            try Store(path: daemon.databasePath).write { db in try other.insert(db) }
            let refused = await daemon.error(EditsPreviewRequest(id: other.id, filters: [FilterStep(filter: "sepia")], size: 64))
            #expect(refused?.kind == .offline && refused?.message.contains("127.0.0.1:9 does not answer") == true, "\(String(describing: refused))")
            let shown = try await daemon.ctl(["status"])
            #expect(shown.stdout.contains("127.0.0.1:9") && shown.stdout.contains("does not answer"), "\(shown.stdout)")
        }
    }
}
