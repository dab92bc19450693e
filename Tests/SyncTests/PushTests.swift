import Foundation
import Library
import Shared
import SplashClient
import Supabase
import Sync
import Testing
import TestSupport

@Suite(.serialized, .devstack) struct PushTests {
    /// Likes, repeats, a like undone before it left, an unlike of nothing: the server ends with exactly
    /// the intended rows, each once.
    @Test func likesReachTheServerExactlyOnce() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let ids = try daemon.seedPhotos(60)
            for id in ids[0..<50] { _ = try await daemon.client.send(PhotosLikeRequest(id: id)) }
            let again = try await daemon.client.send(PhotosLikeRequest(id: ids[0]))
            #expect(!again.changed && again.liked, "liking twice is harmless")
            let never = try await daemon.client.send(PhotosUnlikeRequest(id: ids[55]))
            #expect(!never.changed && !never.liked)
            let result = try await daemon.syncUntilDrained()
            #expect(result.drained && result.rejected == 0)
            // Now undo five: tombstones, since the server has them.
            for id in ids[0..<5] { _ = try await daemon.client.send(PhotosUnlikeRequest(id: id)) }
            // And a like undone at once: if it had not left yet the two cancel and the server never hears of
            // it; if it had, the unlike is a tombstone. Either way the photo is not liked on the server.
            // (Which one happens is a race with the push engine; CoalescingTests pins the cancelling.)
            _ = try await daemon.client.send(PhotosLikeRequest(id: ids[58]))
            let cancelled = try await daemon.client.send(PhotosUnlikeRequest(id: ids[58]))
            #expect(cancelled.changed && !cancelled.liked)
            _ = try await daemon.syncUntilDrained()

            var server = try await daemon.serverLikes()
            #expect(server.removeValue(forKey: ids[58]) != false, "p58 must not be liked on the server")
            #expect(server.count == 50, "rows: \(server.count)")
            #expect(Set(server.filter { !$0.value }.keys) == Set(ids[5..<50]))
            #expect(Set(server.filter { $0.value }.keys) == Set(ids[0..<5]))
            let local = try await daemon.client.send(PhotosListRequest(liked: true, limit: 1000))
            #expect(Set(local.photos.map(\.id)) == Set(ids[5..<50]))
            let status = try await daemon.client.send(StatusRequest())
            #expect(status.outbox == OutboxCounts(pending: 0, inFlight: 0, rejected: 0))
        }
    }

    @Test func anUnknownPhotoIsNotFoundAndABadIDIsInvalid() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            await #expect { try await daemon.client.send(PhotosLikeRequest(id: "unsplash:nowhere")) } throws: { ($0 as? RPCError)?.kind == .notFound }
            await #expect { try await daemon.client.send(PhotosLikeRequest(id: "flickr:1")) } throws: { ($0 as? RPCError)?.kind == .invalidInput }
            await #expect { try await daemon.client.send(PhotosLikeRequest(id: "")) } throws: { ($0 as? RPCError)?.kind == .invalidInput }
        }
    }

    /// Resets, 500s, 503s and 429 with Retry-After on the way: retried with backoff until the server
    /// has every like, once.
    @Test func transientFailuresAreRetriedUntilTheServerConverges() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let ids = try daemon.seedPhotos(20)
            try await devstack.faults("""
                [{"path": "/rest/v1/rpc/push_likes", "method": "POST", "action": "reset", "times": 1},
                 {"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 503, "times": 1},
                 {"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 429, "retry_after": 1, "times": 1},
                 {"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 500, "times": 1}]
                """)
            for id in ids { _ = try await daemon.client.send(PhotosLikeRequest(id: id)) }
            let result = try await daemon.syncUntilDrained(timeout: .seconds(60))
            #expect(result.drained, "\(result)")
            let server = try await daemon.serverLikes()
            #expect(Set(server.keys) == Set(ids))
            #expect(server.values.allSatisfy { !$0 })
            try await devstack.clearFaults()
        }
    }

    /// One op the server refuses (a photo whose metadata breaks a check constraint) is rejected with the
    /// server's reason and kept; the rest of its batch goes through.
    @Test func aRefusedOpIsKeptAndTheRestOfTheBatchGoesThrough() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let good = try daemon.seedPhotos(9, prefix: "ok")
            let bad = try daemon.seedPhotos(1, prefix: "bad", width: 0)
            for id in good + bad { _ = try await daemon.client.send(PhotosLikeRequest(id: id)) }
            _ = try await daemon.syncUntilDrained()
            let server = try await daemon.serverLikes()
            #expect(Set(server.keys) == Set(good))
            let rejected = try await daemon.client.send(QueueListRequest(rejected: true)).ops
            #expect(rejected.map(\.entityId) == bad)
            #expect(rejected.first?.lastError?.isEmpty == false)
            let status = try await daemon.client.send(StatusRequest())
            #expect(status.outbox.rejected == 1)
            // A retry sends it again (the engine never resends a refused op by itself), and the server
            // refuses it again, one attempt later.
            let opId = try #require(rejected.first).opId
            #expect(try await daemon.client.send(QueueRetryRequest(opId: opId)).state == "pending")
            _ = try await daemon.syncUntilDrained()
            let again = try await daemon.client.send(QueueListRequest(rejected: true)).ops
            #expect(again.map(\.opId) == [opId] && again.first.map(\.attempts) ?? 0 > rejected.first?.attempts ?? 0, "\(again)")
            await #expect { try await daemon.client.send(QueueRetryRequest(opId: "no-such-op")) } throws: { ($0 as? RPCError)?.kind == .notFound }
            // The person decides: drop it. The local like stays.
            _ = try await daemon.client.send(QueueDropRequest(opId: opId))
            #expect(try await daemon.client.send(QueueListRequest()).ops.isEmpty)
            #expect(try await daemon.client.send(PhotosListRequest(liked: true, limit: 100)).total == 10)
            await #expect { try await daemon.client.send(QueueDropRequest(opId: "no-such-op")) } throws: { ($0 as? RPCError)?.kind == .notFound }
        }
    }

    /// A batch whose body is over what the server takes (a gateway's limit, answered 413) is halved until
    /// its parts fit: every like lands, none is refused.
    @Test func aBatchOverTheServersBodyLimitIsSplitUntilItFits() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let ids = try daemon.seedPhotos(120, prefix: "big")
            _ = try await daemon.client.send(SyncPauseRequest())
            for id in ids { _ = try await daemon.client.send(PhotosLikeRequest(id: id)) }
            let refusedBefore = try await devstack.answers(status: 413)
            try await devstack.knobs(["rest_body_limit": 16_000])
            do {
                _ = try await daemon.client.send(SyncResumeRequest())
                let result = try await daemon.syncUntilDrained()
                #expect(result.drained && result.rejected == 0, "\(result)")
                #expect(try await devstack.answers(status: 413) > refusedBefore, "the whole batch was over the limit")
            } catch {
                try? await devstack.knobs(["rest_body_limit": 0])
                throw error
            }
            try await devstack.knobs(["rest_body_limit": 0])
            #expect(try await daemon.serverLikes() == Dictionary(uniqueKeysWithValues: ids.map { ($0, false) }))
        }
    }

    /// The batch read ahead while the one before is on the wire goes back to waiting when that one meets
    /// a transient failure: none stays in flight (it would until the next start), and it is tried in its
    /// own turn, its attempt counted once. Once the server answers, every like lands once.
    @Test func aBatchReadAheadGoesBackToWaitingWhenTheOneBeforeFails() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let ids = try daemon.seedPhotos(PushEngine.Configuration().batchSize + 100, prefix: "ahead")
            let user = try await daemon.userId()
            _ = try await daemon.client.send(SyncPauseRequest())
            let likes = LikeActions(store: try Store(path: daemon.databasePath))
            for id in ids { _ = try likes.like(photoId: id, accountId: user) }
            try await devstack.faults(#"[{"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 503, "retry_after": 600}]"#)
            _ = try await daemon.client.send(SyncResumeRequest())
            try await daemon.wait(for: "every batch to be tried and to wait") {
                let ops = try await daemon.client.send(QueueListRequest()).ops
                return ops.count == ids.count && ops.allSatisfy { $0.state == "pending" && $0.lastError != nil }
            }
            let attempts = Set(try await daemon.client.send(QueueListRequest()).ops.map(\.attempts))
            #expect(attempts == [1], "each op tried once: \(attempts)")
            try await devstack.clearFaults()
            #expect(try await daemon.syncUntilDrained().drained)
            #expect(try await daemon.serverLikes() == Dictionary(uniqueKeysWithValues: ids.map { ($0, false) }))
        }
    }

    /// A server without `push_likes` (its migration not applied) answers 404 PGRST202: the ops are kept,
    /// not refused, and the error names the migration, in the queue and the journal; once the function
    /// is there, they go.
    @Test func aServerWithoutThePushFunctionIsNamedAndTheOpsWait() async throws {
        let devstack = try Devstack.require()
        let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../supabase/migrations")
        #expect(FileManager.default.fileExists(atPath: migrations.appendingPathComponent(ServerSchema.pushInOneTransaction).path))
        let function = "public.push_likes(text, jsonb, jsonb)"
        let definition = try await devstack.adminSQL("select pg_get_functiondef('\(function)'::regprocedure)")
        let restore = """
            \(definition);
            revoke all on function \(function) from public, anon;
            grant execute on function \(function) to authenticated;
            notify pgrst, 'reload schema';
            """
        try await devstack.adminSQL("drop function \(function); notify pgrst, 'reload schema';")
        do {
            try await SplashdFixture.run { fixture in
                let daemon = try await fixture.splashd(.sync())
                try await daemon.wait(for: "devstack to forget the function") { try await Self.functionAnswer(devstack).contains("PGRST202") }
                let photo = try #require(try daemon.seedPhotos(1, prefix: "nofn").first)
                try await daemon.expectLikeWaitsFor(migration: ServerSchema.pushInOneTransaction, photo: photo)
                try await devstack.adminSQL(restore)
                try await daemon.wait(for: "devstack to know the function again") { !(try await Self.functionAnswer(devstack).contains("PGRST202")) }
                #expect(try await daemon.syncUntilDrained().drained)
                #expect(try await daemon.serverLikes()[photo] == false)
            }
        } catch {
            try? await devstack.adminSQL(restore)
            throw error
        }
    }

    /// What devstack answers for the function (called read-only, as the service role: it writes nothing), as an error's text.
    static func functionAnswer(_ devstack: Devstack) async throws -> String {
        do {
            _ = try await devstack.serviceRead("rpc/push_likes?device=probe&photo_rows=%5B%5D&like_rows=%5B%5D")
            return ""
        } catch {
            return "\(error)"
        }
    }

    /// A photo's metadata goes once while the server holds it as it is: after the first push, the server's
    /// copy is changed behind the daemon's back, and an unlike and a like again of the same photos (each
    /// carrying the photo) leave that copy alone — they were sent without it. The likes themselves go.
    @Test func aPhotosMetadataTheServerHoldsIsNotSentAgain() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let ids = try daemon.seedPhotos(5, prefix: "held")
            for id in ids { _ = try await daemon.client.send(PhotosLikeRequest(id: id)) }
            #expect(try await daemon.syncUntilDrained().drained)
            let user = try await daemon.userId()
            let quoted = ids.map { "'\($0)'" }.joined(separator: ",")
            let changed = "select count(*) from public.photos where user_id = '\(user)' and title = 'changed on the server'"
            try await devstack.adminSQL(
                "update public.photos set title = 'changed on the server' where user_id = '\(user)' and photo_id in (\(quoted))")
            #expect(try await devstack.adminSQL(changed).trimmingCharacters(in: .whitespacesAndNewlines) == "5")

            for id in ids { _ = try await daemon.client.send(PhotosUnlikeRequest(id: id)) }
            #expect(try await daemon.syncUntilDrained().drained)
            for id in ids { _ = try await daemon.client.send(PhotosLikeRequest(id: id)) }
            #expect(try await daemon.syncUntilDrained().drained)
            #expect(try await daemon.serverLikes() == Dictionary(uniqueKeysWithValues: ids.map { ($0, false) }))
            #expect(try await devstack.adminSQL(changed).trimmingCharacters(in: .whitespacesAndNewlines) == "5",
                    "the photos' rows were not sent again")
        }
    }

    /// Access tokens that expire within seconds: pushes refresh and go on, nothing is lost.
    @Test func anExpiredTokenInTheMiddleIsRefreshed() async throws {
        let devstack = try Devstack.require()
        try await devstack.knobs(["access_token_lifetime": 2])
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let ids = try daemon.seedPhotos(30)
            for (n, id) in ids.enumerated() {
                _ = try await daemon.client.send(PhotosLikeRequest(id: id))
                if n % 10 == 9 { try await Task.sleep(for: .milliseconds(1200)) }
            }
            let result = try await daemon.syncUntilDrained(timeout: .seconds(60))
            #expect(result.drained)
            #expect(Set(try await daemon.serverLikes().keys) == Set(ids))
            try await devstack.knobs(["access_token_lifetime": 3600])
        }
    }

    /// kill -9 at random moments while likes are being pushed, 50 times: after the last restart the
    /// server holds exactly the likes made, each once, and the store is intact.
    @Test func killNineDuringPushLosesNothingAndDoublesNothing() async throws {
        try await SplashdFixture.run { fixture in
            var daemon = try await fixture.splashd(.sync())
            let directory = daemon.directory
            let email = daemon.account
            let ids = try daemon.seedPhotos(250)
            var liked: Set<String> = []
            var next = 0
            for round in 0..<50 {
                let count = 3 + round % 5
                for id in ids[next..<min(next + count, ids.count)] {
                    // A like acknowledged by the daemon is committed; one cut off by the kill may or may not be.
                    if (try? await daemon.client.send(PhotosLikeRequest(id: id))) != nil { liked.insert(id) }
                }
                next += count
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...40)))
                await daemon.kill9()
                daemon = try await fixture.splashd(.sync(directory: directory, email: email))
            }
            let result = try await daemon.syncUntilDrained(timeout: .seconds(60))
            #expect(result.drained)
            let server = try await daemon.serverLikes()
            let local = Set(try await daemon.client.send(PhotosListRequest(liked: true, limit: 1000)).photos.map(\.id))
            #expect(liked.isSubset(of: local), "an acknowledged like was lost locally")
            #expect(Set(server.keys) == local, "server \(server.count) vs local \(local.count)")
            let integrity = try Store(path: daemon.databasePath).integrityCheck()
            #expect(integrity == ["ok"])
        }
    }
}

import Store
