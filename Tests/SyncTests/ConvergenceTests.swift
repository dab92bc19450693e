#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB
import Shared
import SplashClient
import Testing
import TestSupport

/// The cases where a device used to stay out of step, reproduced on purpose with devstack's faults
/// and the daemon's test-only crash points, not by luck (issues 16, 23 and 24).
@Suite(.serialized, .devstack) struct ConvergenceTests {
    func ops(_ daemon: Splashd) async throws -> [QueuedOp] {
        try await daemon.client.send(QueueListRequest()).ops
    }

    /// An edit removed while its upload is in flight, then a crash at that very point. After
    /// the restart the upload is pending again with its file gone; it must be superseded by the removal,
    /// not retried forever, and `sync --wait` must end drained.
    @Test func anUploadInFlightWhenItsEditIsRemovedDoesNotStickAfterACrash() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync(environment: ["SPLASHD_TEST_CRASH_AT": "edit.removed_in_flight"]))
            let photo = try #require(try await daemon.seedCatalogue(count: 1).first)
            try await devstack.faults(#"[{"path": "/storage/v1/object/*", "method": "POST", "delay_ms": 5000}]"#)
            let edit = try await daemon.client.send(EditsCreateRequest(id: photo.id, filters: [FilterStep(filter: "sepia", params: [0.8])]))
            #expect(try await eventually(within: .seconds(20), every: .milliseconds(50)) { try await ops(daemon).contains { $0.entityId == edit.editId && $0.state == "in_flight" } })
            // The removal commits, then the daemon dies at the named point before answering.
            await #expect(throws: (any Error).self) { try await daemon.client.send(EditsDeleteRequest(editId: edit.editId)) }
            #expect(await daemon.process.waitForExit() != nil)
            #expect(daemon.process.stderr.contains("crash point edit.removed_in_flight"))
            try await devstack.clearFaults()

            let again = try await fixture.splashd(.sync(directory: daemon.directory, email: daemon.account))
            let result = try await again.client.send(SyncNowRequest(wait: true, timeoutSeconds: 30))
            #expect(result.outcome == .drained, "\(result)")
            #expect(try await ops(again).isEmpty)
            #expect(try await again.client.send(EditsListRequest()).edits.isEmpty)
            let userId = try await again.userId()
            let rows = try await devstack.serviceRead("edits?select=id,deleted_at&user_id=eq.\(userId)")
            #expect(rows.allSatisfy { !($0["deleted_at"] is NSNull) }, "\(rows)")
            let token = try await devstack.userToken(email: again.account, password: Splashd.password)
            #expect(try await devstack.storageGet("\(userId)/\(edit.editId).jpg", token: token).status != 200)
        }
    }

    /// A's upload landed but its answer was lost; B then
    /// removed the edit. A's upload, sent again, must not bring it back: the removal is final, and the
    /// object A uploaded again is deleted.
    @Test func anUploadSentAgainDoesNotBringBackAnEditRemovedElsewhere() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync())
            let photo = try #require(try await a.seedCatalogue(count: 1).first)
            // The row lands, its answer is lost, and every try after that is refused for now: A's upload
            // stays queued, its delivery uncertain, until A is stopped.
            try await devstack.faults(#"""
                [{"path": "/rest/v1/edits", "method": "POST", "action": "lose_answer", "times": 1},
                 {"path": "/rest/v1/edits", "method": "POST", "status": 503}]
                """#)
            let edit = try await a.client.send(EditsCreateRequest(id: photo.id, filters: [FilterStep(filter: "sepia", params: [0.8])]))
            #expect(try await eventually(within: .seconds(20), every: .milliseconds(50)) { try await ops(a).contains { $0.entityId == edit.editId && $0.state == "pending" && $0.attempts >= 1 } })
            let userId = try await a.userId()
            await a.stop()
            try await devstack.clearFaults()
            let landed = try await devstack.serviceRead("edits?select=deleted_at&id=eq.\(edit.editId)")
            #expect(landed.count == 1 && landed.first?["deleted_at"] is NSNull, "the first try landed: \(landed)")

            // B pulls the edit and removes it.
            let b = try await fixture.splashd(.sync(email: a.account))
            _ = try await b.client.send(LoginRequest(email: a.account, password: Splashd.password))
            _ = try await b.syncUntilDrained()
            #expect(try await b.client.send(EditsListRequest()).edits.map(\.editId) == [edit.editId])
            _ = try await b.client.send(EditsDeleteRequest(editId: edit.editId))
            #expect(try await b.syncUntilDrained().drained)

            // A comes back and sends its upload again.
            let again = try await fixture.splashd(.sync(directory: a.directory, email: a.account))
            #expect(try await again.syncUntilDrained().drained)
            let rows = try await devstack.serviceRead("edits?select=deleted_at&id=eq.\(edit.editId)")
            #expect(rows.count == 1 && !(rows.first?["deleted_at"] is NSNull), "the removal stands: \(rows)")
            let token = try await devstack.userToken(email: a.account, password: Splashd.password)
            #expect(try await devstack.storageGet("\(userId)/\(edit.editId).jpg", token: token).status != 200, "no object left behind")
            #expect(try await eventually(within: .seconds(20), every: .milliseconds(50)) { try await again.client.send(EditsListRequest()).edits.isEmpty }, "A lets go of it too")
            _ = try await b.syncUntilDrained()
            #expect(try await b.client.send(EditsListRequest()).edits.isEmpty)
        }
    }

    /// The like reached the server but its answer was lost. The unlike that follows
    /// must not cancel it locally; it must reach the server and win.
    @Test func anUnlikeAfterALikeWhoseAnswerWasLostReachesTheServer() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let id = try #require(try daemon.seedPhotos(1, prefix: "lost").first)
            // The answer lost once, then the server unavailable until the unlike is queued: the like's op
            // stays attempted and pending (a retry that landed at once, before the test looked, made it
            // pass by, and the test with it).
            try await devstack.faults(#"""
                [{"path": "/rest/v1/rpc/push_likes", "method": "POST", "action": "lose_answer", "times": 1},
                 {"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 503}]
                """#)
            _ = try await daemon.client.send(PhotosLikeRequest(id: id))
            let attempted = try await eventually(within: .seconds(20), every: .milliseconds(50)) { try await ops(daemon).contains { $0.state == "pending" && $0.attempts >= 1 } }
            let queue = try await ops(daemon)
            #expect(attempted, "\(queue) \(daemon.process.stderr.suffix(3000))")
            // serverLikes maps a photo to whether its row is a tombstone.
            #expect(try await daemon.serverLikes()[id] == false, "the like landed though its answer was lost")
            let unliked = try await daemon.client.send(PhotosUnlikeRequest(id: id))
            #expect(unliked.changed && unliked.queued && !unliked.liked)
            try await devstack.clearFaults()
            let result = try await daemon.client.send(SyncNowRequest(wait: true, timeoutSeconds: 30))
            #expect(result.outcome == .drained, "\(result)")
            #expect(try await daemon.serverLikes()[id] == true, "the person's last word, the unlike, is on the server")
        }
    }

    /// `sync --wait` answers within a second of its timeout even when the request
    /// under way hangs for longer, and says what is left.
    @Test func syncWaitHonoursItsTimeoutWhenTheServerHangs() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let id = try #require(try daemon.seedPhotos(1, prefix: "hang").first)
            try await devstack.faults(#"[{"path": "/rest/v1/*", "method": "POST", "delay_ms": 12000}]"#)
            _ = try await daemon.client.send(PhotosLikeRequest(id: id))
            let started = ContinuousClock.now
            let result = try await daemon.client.send(SyncNowRequest(wait: true, timeoutSeconds: 2))
            let took = ContinuousClock.now - started
            #expect(took < .seconds(3), "answered after \(took)")
            #expect(result.outcome == .timedOut && !result.drained && result.pending + result.inFlight == 1, "\(result)")
            try await devstack.clearFaults()
            #expect(try await daemon.client.send(SyncNowRequest(wait: true, timeoutSeconds: 30)).outcome == .drained)
        }
    }

    /// Issues 23 and 24: a person's sync sends an op that is backing off (here for two minutes, as the
    /// server's Retry-After asked) at once, instead of timing out behind its backoff.
    @Test func aPersonsSyncSendsWhatIsBackingOffAtOnce() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let id = try #require(try daemon.seedPhotos(1, prefix: "wait").first)
            try await devstack.faults(#"[{"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 503, "retry_after": 120, "times": 1}]"#)
            _ = try await daemon.client.send(PhotosLikeRequest(id: id))
            #expect(try await eventually(within: .seconds(20), every: .milliseconds(50)) { try await ops(daemon).contains { $0.state == "pending" && $0.attempts == 1 && $0.nextAttemptAt != nil } })
            let result = try await daemon.client.send(SyncNowRequest(wait: true, timeoutSeconds: 10))
            #expect(result.outcome == .drained, "\(result)")
            #expect(try await daemon.serverLikes()[id] == false, "liked on the server")
            try await devstack.clearFaults()
        }
    }

    /// B pulls while its own op on a photo waits (here on a backoff), so the pull passes over
    /// the server's newer row and its cursor moves on. The op is then refused. B must end with the
    /// server's state, not its own refused one, for good.
    @Test func aRowPassedOverWhileALocalOpWaitedIsAppliedOnceTheOpIsRefused() async throws {
        let devstack = try Devstack.require()
        try await devstack.clearFaults()
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync())
            let id = try #require(try a.seedPhotos(1, prefix: "passed").first)
            _ = try await a.client.send(PhotosLikeRequest(id: id))
            #expect(try await a.client.send(SyncNowRequest(wait: true, timeoutSeconds: 30)).outcome == .drained)
            // B hears of A's changes only by pulling: a live channel would bring A's unlike at once,
            // before B's own unlike below (seen in one fresh-clone run: no op, since B was unliked already).
            let pullOnly = "[realtime]\nenabled = false\n"
            var b = try await fixture.splashd(.sync(email: a.account, config: pullOnly))
            _ = try await b.client.send(LoginRequest(email: a.account, password: Splashd.password))
            #expect(try await b.client.send(SyncNowRequest(wait: true, timeoutSeconds: 30)).outcome == .drained)
            #expect(try await b.client.send(PhotosListRequest(liked: true)).photos.map(\.id) == [id])

            // A unlikes: the server's row is now a tombstone B has not seen.
            _ = try await a.client.send(PhotosUnlikeRequest(id: id))
            #expect(try await a.client.send(SyncNowRequest(wait: true, timeoutSeconds: 30)).outcome == .drained)

            // B unlikes and likes again before hearing of it; every push meets a 503 asking for a minute
            // (also the one the restart below sends at once when the backend answers).
            try await devstack.faults(#"[{"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 503, "retry_after": 60}]"#)
            _ = try await b.client.send(PhotosUnlikeRequest(id: id))
            #expect(try await eventually(within: .seconds(20), every: .milliseconds(50)) { try await ops(b).contains { $0.op == "unlike" && $0.attempts == 1 && $0.state == "pending" } })
            _ = try await b.client.send(PhotosLikeRequest(id: id))
            #expect(try await eventually(within: .seconds(20), every: .milliseconds(50)) { try await ops(b).contains { $0.op == "like" && $0.attempts == 1 && $0.state == "pending" } })

            // A restart pulls at once; the like waits (in flight, or on its backoff), so the pull passes over A's tombstone.
            await b.stop()
            b = try await fixture.splashd(.sync(directory: b.directory, email: a.account, config: pullOnly))
            let path = b.databasePath
            #expect(try await eventually(within: .seconds(20), every: .milliseconds(50)) {
                try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pull_rereads") ?? 0 } == 1
            }, "the pull passed over the server's row and remembered it: \(b.process.stderr.suffix(4000))")

            // The server refuses the like. B must come to the server's state.
            try await devstack.faults(#"[{"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 400, "body": {"code": "23514", "message": "refused"}, "times": 1}]"#)
            let result = try await b.client.send(SyncNowRequest(wait: true, timeoutSeconds: 30))
            #expect(result.outcome == .rejected && result.rejected == 1, "\(result)")
            #expect(try await b.client.send(PhotosListRequest(liked: true)).photos.isEmpty, "B shows the server's unlike")
            try await devstack.clearFaults()
        }
    }

    /// `sync.now` with wait answers "offline" once the monitor has said so for its grace, not at its
    /// timeout.
    @Test func aSyncWaitSaysOfflineOnceTheMonitorDoes() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let ids = try daemon.seedPhotos(1, prefix: "gone")
            try await devstack.faults("""
                [{"path": "/rest/v1/rpc/push_likes", "method": "POST", "delay_ms": 2000, "action": "lose_answer"},
                 {"path": "/auth/v1/health", "action": "reset"}]
                """)
            // The like's answer is lost: the monitor probes and finds the backend gone.
            _ = try await daemon.client.send(PhotosLikeRequest(id: ids[0]))
            let result = try await daemon.client.send(SyncNowRequest(wait: true, timeoutSeconds: 30))
            #expect(result.outcome == .offline && result.pending == 1, "\(result)")
            try await devstack.clearFaults()
        }
    }

    /// When the backend answers again, what is queued goes at once, even an op whose
    /// backoff (a 503 asking for two minutes) has far to run, and the account stops saying "offline".
    @Test func theBackendAnsweringAgainSendsWhatIsQueuedAtOnce() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let ids = try daemon.seedPhotos(2, prefix: "back")
            try await devstack.faults("""
                [{"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 503, "retry_after": 120, "times": 1},
                 {"path": "/rest/v1/rpc/push_likes", "method": "POST", "action": "lose_answer", "times": 1},
                 {"path": "/auth/v1/health", "action": "reset", "times": 2}]
                """)
            _ = try await daemon.client.send(PhotosLikeRequest(id: ids[0]))
            #expect(try await eventually(within: .seconds(20), every: .milliseconds(50)) { try await ops(daemon).contains { $0.entityId == ids[0] && $0.attempts == 1 && $0.state == "pending" } })
            // The second like's answer is lost with its connection: the monitor probes, the health check fails twice: offline.
            _ = try await daemon.client.send(PhotosLikeRequest(id: ids[1]))
            #expect(try await eventually(within: .seconds(20), every: .milliseconds(50)) { try await daemon.client.send(StatusRequest()).connectivity.state == .offline })
            // The monitor's next probe (about a second later) finds the backend: everything goes, no sync asked.
            let sent = try await eventually(within: .seconds(15), every: .milliseconds(50)) { try await ops(daemon).isEmpty }
            let left = try await ops(daemon)
            #expect(sent, "\(left)")
            let server = try await daemon.serverLikes()
            #expect(server[ids[0]] == false && server[ids[1]] == false, "both liked on the server: \(server)")
            let status = try await daemon.client.send(StatusRequest())
            #expect(status.connectivity.state == .online && status.account.state == .signedIn, "\(status.connectivity) \(status.account)")
            try await devstack.clearFaults()
        }
    }
}
