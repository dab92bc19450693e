import Account
import Foundation
import GRDB
import Shared
import SplashClient
import Supabase
import Store
import Testing
import TestSupport

/// The person's last word wins across devices, by when they acted on the server's clock, not by when
/// each device's change arrives — with one device's clock off by minutes or a year (the test hook
/// `SPLASHD_TEST_CLOCK_SKEW_SECONDS`).
@Suite(.serialized, .devstack) struct LastWordTests {
    static let skew = "SPLASHD_TEST_CLOCK_SKEW_SECONDS"

    /// Devices order actions only as finely as they know the server's clock: a second at worst (the
    /// `Date` of one answer), a few milliseconds once `ServerClockKeeper` has asked at a second's edges,
    /// which it does within seconds of a start, as finely as the round trips allow (this wait fails the
    /// test if it does not within 30 s). These tests' two devices act at least a fifth of a second apart
    /// (a stop, a sign-in and a push lie between), so they wait for 50 ms first.
    static func sharpClocks(_ daemons: Splashd...) async throws {
        for daemon in daemons {
            try await daemon.wait(for: "the server's clock known to 50 ms", tries: 300) {
                (try await daemon.client.send(StatusRequest()).clock?.uncertaintySeconds ?? 1) < 0.05
            }
        }
    }

    /// Laptop offline: like a photo ("10:00"). Desktop online: like it, then unlike it ("10:05"). The
    /// laptop comes back last ("11:00") and its like arrives last: it gives way, and every device and the
    /// server end with the photo not liked. The laptop's clock is off by `skew` seconds all along.
    @Test(arguments: [600.0, -600.0, 31_536_000.0])
    func aLikeMadeOfflineEarlierGivesWayToALaterUnlikeThatArrivedFirst(skew: Double) async throws {
        let devstack = try Devstack.require()
        try await devstack.clearFaults()
        try await SplashdFixture.run { fixture in
            let laptop = try await fixture.splashd(.sync(environment: [Self.skew: "\(skew)"]))
            let desktop = try await fixture.splashd(.sync(email: laptop.account))
            _ = try await desktop.client.send(LoginRequest(email: laptop.account, password: Splashd.password))
            let photo = try #require(try laptop.seedPhotos(1, prefix: "lw").first)
            _ = try desktop.seedPhotos(1, prefix: "lw")
            try await Self.sharpClocks(laptop, desktop)

            // The laptop is offline: its like is queued and cannot go.
            try await devstack.faults(#"[{"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 503}]"#)
            #expect(try await laptop.client.send(PhotosLikeRequest(id: photo)).queued)
            try await laptop.wait(for: "the laptop's like to be tried and refused") {
                try await laptop.client.send(QueueListRequest()).ops.contains { $0.entityId == photo && $0.attempts >= 1 }
            }
            await laptop.stop()
            try await devstack.clearFaults()

            _ = try await desktop.client.send(PhotosLikeRequest(id: photo))
            #expect(try await desktop.syncUntilDrained().drained)
            _ = try await desktop.client.send(PhotosUnlikeRequest(id: photo))
            #expect(try await desktop.syncUntilDrained().drained)
            #expect(try await desktop.serverLikes()[photo] == true, "tombstoned")

            let back = try await fixture.splashd(.sync(directory: laptop.directory, email: laptop.account, environment: [Self.skew: "\(skew)"]))
            #expect(try await back.syncUntilDrained().drained)
            let userId = try await back.userId()
            let serverRows = try await devstack.serviceRead("likes?select=liked_at,deleted_at,acted_at,acted_by,updated_at&user_id=eq.\(userId)")
            #expect(try await back.serverLikes()[photo] == true, "the laptop's older like did not undo the later unlike: \(serverRows); \(back.process.stderr.suffix(3000))")
            #expect(try await back.client.send(PhotosListRequest(liked: true)).photos.isEmpty, "the laptop took the server's row at once")
            // Given way in the push's answer, or superseded by the pull that came first.
            try await back.wait(for: "the journal to say the like gave way") { back.process.stderr.contains("gave way to later") }
            _ = try await desktop.syncUntilDrained()
            #expect(try await desktop.client.send(PhotosListRequest(liked: true)).photos.isEmpty)

            let clock = try #require(try await back.client.send(StatusRequest()).clock, "the laptop knows the server's clock")
            #expect(abs(clock.offsetSeconds + skew) < 1, "the laptop's clock is \(skew) s off: \(clock)")
            #expect(clock.uncertaintySeconds < 1, "\(clock)")
            if abs(skew) >= 60 {
                try await back.wait(for: "a warning about the clock") { back.process.stderr.contains("account server's; changes are ordered by") }
                let (status, text, _) = try await back.ctl(["status"])
                #expect(status == 0 && text.contains(skew > 0 ? "ahead of the server" : "behind the server"), "\(text)")
                if abs(skew) == 600 { #expect(text.contains("10 min "), "ten minutes off, not nine: \(text)") }
                let line = text.split(separator: "\n").first { $0.contains(" the server (") } ?? ""
                #expect(line.count <= 80, "the clock's line fits an 80-column terminal: \(line)")
            }
        }
    }

    /// The mirror case: the later action is the one that arrives last, made on the device whose clock is
    /// behind. It stands.
    @Test func aLaterUnlikeArrivingLastFromASlowClockStands() async throws {
        let devstack = try Devstack.require()
        try await devstack.clearFaults()
        try await SplashdFixture.run { fixture in
            let desktop = try await fixture.splashd(.sync())
            let laptop = try await fixture.splashd(.sync(email: desktop.account, environment: [Self.skew: "-600"]))
            _ = try await laptop.client.send(LoginRequest(email: desktop.account, password: Splashd.password))
            let photo = try #require(try desktop.seedPhotos(1, prefix: "lw").first)
            _ = try laptop.seedPhotos(1, prefix: "lw")
            try await Self.sharpClocks(laptop, desktop)
            _ = try await desktop.client.send(PhotosLikeRequest(id: photo))
            #expect(try await desktop.syncUntilDrained().drained)
            _ = try await laptop.syncUntilDrained()
            #expect(try await laptop.client.send(PhotosListRequest(liked: true)).photos.map(\.id) == [photo])

            try await devstack.faults(#"[{"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 503}]"#)
            _ = try await laptop.client.send(PhotosUnlikeRequest(id: photo))
            try await devstack.clearFaults()
            #expect(try await laptop.syncUntilDrained().drained)
            #expect(try await laptop.serverLikes()[photo] == true, "the later unlike stands")
            _ = try await desktop.syncUntilDrained()
            #expect(try await desktop.client.send(PhotosListRequest(liked: true)).photos.isEmpty)
        }
    }

    /// A laptop whose clock is ten minutes slow signs in and dies at once (kill -9, while the clock keeper
    /// is still probing: it keeps nothing of its own). It starts again with no network and likes, then
    /// unlikes, a photo the desktop liked earlier: it still knows the server's time (kept with the
    /// sign-in's answer), so once back its unlike stands, whichever of its requests goes first; a device
    /// that stamped by its wall clock, or that bounded its stamps by it, would give way to the older like.
    @Test func aDeviceKilledRightAfterSigningInKeepsTheServersClock() async throws {
        let devstack = try Devstack.require()
        try await devstack.clearFaults()
        try await SplashdFixture.run { fixture in
            let desktop = try await fixture.splashd(.sync())
            let photo = try #require(try desktop.seedPhotos(1, prefix: "lw").first)
            let laptop = try await fixture.splashd(.sync(email: desktop.account, environment: [Self.skew: "-600"]))
            _ = try await laptop.client.send(LoginRequest(email: desktop.account, password: Splashd.password))
            await laptop.kill9()

            _ = try await desktop.client.send(PhotosLikeRequest(id: photo))
            #expect(try await desktop.syncUntilDrained().drained)
            // The laptop acts later than the desktop by more than what one answer's Date (whole seconds)
            // leaves it unsure of the server's clock (±0.5 s): otherwise either could be the later.
            let user = try await desktop.userId()
            let age = "select now() - acted_at > interval '1.5 seconds' from public.likes where user_id = '\(user)' and photo_id = '\(photo)'"
            try await desktop.wait(for: "the desktop's like to be 1.5 s old by the server's clock") {
                try await devstack.adminSQL(age).trimmingCharacters(in: .whitespacesAndNewlines) == "t"
            }

            let nowhere = ["SPLASHD_BACKEND_URL": "http://127.0.0.1:9", Self.skew: "-600"]
            let offline = try await fixture.splashd(.sync(directory: laptop.directory, email: desktop.account, environment: nowhere))
            let clock = try #require(try await offline.client.send(StatusRequest()).clock, "the sign-in's answer taught the clock, and it was kept")
            #expect(abs(clock.offsetSeconds - 600) < 1, "\(clock)")
            _ = try offline.seedPhotos(1, prefix: "lw")
            _ = try await offline.client.send(PhotosLikeRequest(id: photo))
            _ = try await offline.client.send(PhotosUnlikeRequest(id: photo))
            await offline.stop()

            let back = try await fixture.splashd(.sync(directory: laptop.directory, email: desktop.account, environment: [Self.skew: "-600"]))
            #expect(try await back.syncUntilDrained().drained)
            #expect(try await back.serverLikes()[photo] == true, "the laptop's later unlike stands: \(back.process.stderr.suffix(2000))")
            _ = try await desktop.syncUntilDrained()
            #expect(try await desktop.client.send(PhotosListRequest(liked: true)).photos.isEmpty)
            #expect(try await back.client.send(PhotosListRequest(liked: true)).photos.isEmpty)
        }
    }

    /// The same rule for a username set on two devices: the laptop's rename, made first and sent last,
    /// gives way to the desktop's later one, on both and on the server.
    @Test func anEarlierRenameSentLastGivesWay() async throws {
        let devstack = try Devstack.require()
        try await devstack.clearFaults()
        try await SplashdFixture.run { fixture in
            let laptop = try await fixture.splashd(.sync(environment: [Self.skew: "900"]))
            let desktop = try await fixture.splashd(.sync(email: laptop.account))
            _ = try await desktop.client.send(LoginRequest(email: laptop.account, password: Splashd.password))
            let early = uniqueUsername("early")
            let late = uniqueUsername("late")
            try await Self.sharpClocks(laptop, desktop)

            try await devstack.faults(#"[{"path": "/rest/v1/profiles", "method": "PATCH", "status": 503}]"#)
            let serverNow = "select extract(epoch from now())"
            _ = try await laptop.client.send(SetUsernameRequest(username: early))
            let renamedBy = try #require(Double(try await devstack.adminSQL(serverNow).trimmingCharacters(in: .whitespacesAndNewlines)))
            try await laptop.wait(for: "the laptop's rename to be tried") {
                try await laptop.client.send(QueueListRequest()).ops.contains { $0.entity == "profile" && $0.attempts >= 1 }
            }
            await laptop.stop()
            try await devstack.clearFaults()
            // Later by more than either clock could be wrong: a gap of a few hundred milliseconds left the
            // server keeping the earlier rename about once in ten runs.
            try await desktop.wait(for: "1.5 s on the server's clock since the laptop's rename") {
                (Double(try await devstack.adminSQL(serverNow).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > renamedBy + 1.5
            }
            _ = try await desktop.client.send(SetUsernameRequest(username: late))
            #expect(try await desktop.syncUntilDrained().drained)

            let back = try await fixture.splashd(.sync(directory: laptop.directory, email: laptop.account, environment: [Self.skew: "900"]))
            #expect(try await back.syncUntilDrained().drained)
            let userId = try await back.userId()
            let server = try await devstack.serviceRead("profiles?select=username&id=eq.\(userId)")
            #expect(server.first?["username"] as? String == late)
            try await back.wait(for: "the laptop to show the later name") {
                try await back.client.send(ProfileGetRequest()).profile.username == late
            }
            _ = try await desktop.syncUntilDrained()
            #expect(try await desktop.client.send(ProfileGetRequest(refresh: true)).profile.username == late)
        }
    }

    /// An op stamped a year ahead (a clock that was wrong when it was made, before the server ever
    /// answered) is sent as the server's now, and the journal says so; the server's own trigger clamps
    /// such a stamp too.
    @Test func anActionStampedInTheFutureIsClamped() async throws {
        let devstack = try Devstack.require()
        try await devstack.clearFaults()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photo = try #require(try daemon.seedPhotos(1, prefix: "lw").first)
            try await devstack.faults(#"[{"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 503}]"#)
            _ = try await daemon.client.send(PhotosLikeRequest(id: photo))
            await daemon.stop()
            try await devstack.clearFaults()
            let yearAhead = Int64((Date().timeIntervalSince1970 + 31_536_000) * 1000)
            let store = try Store(path: daemon.databasePath)
            try store.write { db in
                try db.execute(sql: "UPDATE outbox SET payload = json_set(payload, '$.actedAt', ?)", arguments: [yearAhead])
            }
            let back = try await fixture.splashd(.sync(directory: daemon.directory, email: daemon.account))
            #expect(try await back.syncUntilDrained().drained)
            let userId = try await back.userId()
            let rows = try await devstack.serviceRead("likes?select=acted_at&user_id=eq.\(userId)")
            let text = try #require(rows.first?["acted_at"] as? String)
            let actedAt = try #require(Self.date(text), "\(text)")
            #expect(abs(actedAt.timeIntervalSinceNow) < 60, "sent as now: \(actedAt)")
            #expect(back.process.stderr.contains("a like was stamped in the future"))

            // Straight at the server: a stamp a year ahead is taken as now.
            let uid = userId.replacingOccurrences(of: "'", with: "")
            let kept = try await devstack.adminSQL("""
                insert into public.likes (user_id, photo_id, acted_at, acted_by) values ('\(uid)', 'unsplash:clamp', now() + interval '1 year', 'zz')
                returning abs(extract(epoch from acted_at - now())) < 1, acted_by
                """)
            #expect(kept.hasPrefix("t|zz"), "\(kept)")
        }
    }

    /// The server's rule, on its own: the later stamp stands; at the same moment the greater device id,
    /// whichever arrives first; a write without a stamp of its own (an older client) is made now.
    @Test func theServerKeepsTheLaterStampAndBreaksTiesByDevice() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let uid = try await daemon.userId()
            func upsert(_ photo: String, at: String, by device: String, unliked: Bool) async throws -> String {
                try await devstack.adminSQL("""
                    insert into public.likes (user_id, photo_id, liked_at, deleted_at, acted_at, acted_by)
                    values ('\(uid)', '\(photo)', '\(at)', \(unliked ? "'\(at)'" : "null"), '\(at)', '\(device)')
                    on conflict (user_id, photo_id) do update set liked_at = excluded.liked_at, deleted_at = excluded.deleted_at,
                      acted_at = excluded.acted_at, acted_by = excluded.acted_by
                    returning deleted_at is not null, acted_by
                    """).split(separator: "\n").first.map(String.init) ?? ""
            }
            let moment = "2026-01-01T10:00:00.123Z"
            // "b" is greater than "a": b's unlike stands whichever order they came in.
            #expect(try await upsert("unsplash:tie1", at: moment, by: "a", unliked: false) == "f|a")
            #expect(try await upsert("unsplash:tie1", at: moment, by: "b", unliked: true) == "t|b")
            #expect(try await upsert("unsplash:tie2", at: moment, by: "b", unliked: true) == "t|b")
            #expect(try await upsert("unsplash:tie2", at: moment, by: "a", unliked: false) == "t|b", "a tie goes to the greater device")
            #expect(try await upsert("unsplash:tie2", at: "2026-01-01T09:59:59Z", by: "z", unliked: false) == "t|b", "earlier loses")
            #expect(try await upsert("unsplash:tie2", at: "2026-01-01T10:00:01Z", by: "a", unliked: false) == "f|a", "later wins")
            let unstamped = try await devstack.adminSQL("""
                update public.likes set deleted_at = now() where user_id = '\(uid)' and photo_id = 'unsplash:tie2'
                returning acted_at > '2026-01-01T10:00:02Z', acted_by = ''
                """)
            #expect(unstamped.hasPrefix("t|t"), "\(unstamped)")
        }
    }

    /// A server without the last-word migration answers as PostgREST does for a column it lacks: the ops
    /// are kept (not refused), and the error names the migration to apply, in the queue and the journal;
    /// once the server has it, they go.
    @Test func aServerWithoutTheMigrationIsNamedAndTheOpsAreKept() async throws {
        let devstack = try Devstack.require()
        try await devstack.clearFaults()
        try await SplashdFixture.run { fixture in
            let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../supabase/migrations")
            #expect(FileManager.default.fileExists(atPath: migrations.appendingPathComponent(ServerSchema.lastWordWins).path), "the name is the file's")
            let daemon = try await fixture.splashd(.sync())
            let photo = try #require(try daemon.seedPhotos(1, prefix: "lw").first)
            try await devstack.faults(#"""
                [{"path": "/rest/v1/rpc/push_likes", "method": "POST", "status": 400,
                  "body": {"code": "PGRST204", "message": "Could not find the 'acted_at' column of 'likes' in the schema cache"}},
                 {"path": "/rest/v1/likes", "method": "GET", "status": 400,
                  "body": {"code": "42703", "message": "column likes.acted_at does not exist"}}]
                """#)
            try await daemon.expectLikeWaitsFor(migration: ServerSchema.lastWordWins, photo: photo, journalAlsoSays: ["push failed", "pull failed"])
            try await devstack.clearFaults()
            #expect(try await daemon.syncUntilDrained().drained)
            #expect(try await daemon.serverLikes()[photo] == false)
        }
    }

    static func date(_ text: String) -> Date? {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let normal = text.replacingOccurrences(of: " ", with: "T").replacingOccurrences(of: "+00:00", with: "Z")
        return (try? style.parse(normal)) ?? (try? Date.ISO8601FormatStyle().parse(normal))
    }
}
