import Foundation
import HTTP
import Shared
import SplashClient
import Testing
import TestSupport

/// Changes reach the other device through Realtime, without `sync` and long before the
/// timed pull (5 min); a socket lost mid-stream is caught up on the rejoin.
@Suite(.serialized, .devstack) struct LiveSyncTests {
    func liked(_ daemon: Splashd) async throws -> Set<String> {
        Set(try await daemon.client.send(PhotosListRequest(liked: true, limit: 1000)).photos.map(\.id))
    }

    func twoDevices(_ fixture: SplashdFixture) async throws -> (Splashd, Splashd) {
        let a = try await fixture.splashd(.sync())
        let b = try await fixture.splashd(.sync(email: a.account))
        _ = try await b.client.send(LoginRequest(email: a.account, password: Splashd.password))
        try await b.wait(for: "B's channel to be live") { try await b.send(StatusRequest()).live.state == .live }
        return (a, b)
    }

    @Test func aLikeOnOneDeviceShowsOnTheOtherWithoutASync() async throws {
        try await SplashdFixture.run { fixture in
            let (a, b) = try await twoDevices(fixture)
            let ids = try a.seedPhotos(3, prefix: "live")
            _ = try await a.client.send(PhotosLikeRequest(id: ids[0]))
            let seen = try await eventually(tries: 100, every: .milliseconds(100)) { try await liked(b) } until: { $0.contains(ids[0]) }
            #expect(seen.contains(ids[0]), "B never showed A's like; B's log:\n\(b.process.stderr.suffix(3000))")
            _ = try await a.client.send(PhotosUnlikeRequest(id: ids[0]))
            let after = try await eventually(tries: 100, every: .milliseconds(100)) { try await liked(b) } until: { !$0.contains(ids[0]) }
            #expect(!after.contains(ids[0]), "B still shows the like A took back")
        }
    }

    @Test func aSocketLostMidStreamIsCaughtUpOnTheRejoin() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let (a, b) = try await twoDevices(fixture)
            let ids = try a.seedPhotos(2, prefix: "drop")
            let marker = b.process.stderr.count
            try await devstack.dropRealtimeSockets()
            // While B's socket is down (its reconnect waits up to a second), A's like reaches the server.
            _ = try await a.client.send(PhotosLikeRequest(id: ids[1]))
            _ = try await a.syncUntilDrained()
            let seen = try await eventually(tries: 150, every: .milliseconds(100)) { try await liked(b) } until: { $0.contains(ids[1]) }
            #expect(seen.contains(ids[1]), "the catch-up pull after the rejoin did not bring A's like")
            #expect(String(b.process.stderr.dropFirst(marker)).contains("realtime channel live"), "B joined again")
        }
    }

    /// The backend crashes mid-stream and comes back (devstack restart: the server killed, every socket
    /// cut without a word, a replication slot read cut short is read again): every like A made reaches
    /// B, each once — B holds each of them once, sends nothing back, and the server has one row each.
    /// B is stopped (SIGSTOP) across the restart and A's second half, so those likes happen while B
    /// has no channel at all. They reach B by the pull its lost channel rings or the catch-up pull
    /// after its rejoin, and the restarted server may announce changes B has already pulled (it reads
    /// the slot from wherever the killed one stopped): the same like seen twice, which must change
    /// nothing.
    @Test func aBackendCrashMidStreamLosesNoChangeAndAppliesNoneTwice() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let (a, b) = try await twoDevices(fixture)
            let ids = try a.seedPhotos(8, prefix: "crash")
            for id in ids[..<4] { _ = try await a.client.send(PhotosLikeRequest(id: id)) }
            b.process.signal(SIGSTOP)
            do {
                try await devstack.restart()
                for id in ids[4...] { _ = try await a.client.send(PhotosLikeRequest(id: id)) }
                _ = try await a.syncUntilDrained()
            } catch {
                b.process.signal(SIGCONT)
                throw error
            }
            b.process.signal(SIGCONT)
            let seen = try await eventually(tries: 200, every: .milliseconds(100)) {
                try await b.client.send(PhotosListRequest(liked: true, limit: 1000)).photos.map(\.id)
            } until: { Set($0) == Set(ids) }
            #expect(Set(seen) == Set(ids) && seen.count == ids.count, "B shows \(seen.sorted()); B's log:\n\(b.process.stderr.suffix(3000))")
            try await b.wait(for: "B's channel to be live again") { try await b.send(StatusRequest()).live.state == .live }
            #expect(try await b.send(StatusRequest()).outbox == OutboxCounts(pending: 0, inFlight: 0, rejected: 0), "B sent something back")
            let server = try await a.serverLikes()
            #expect(server == Dictionary(uniqueKeysWithValues: ids.map { ($0, false) }), "\(server)")
        }
    }
}

extension LiveSyncTests {
    /// Signed out, the channel closes at once (not at its next heartbeat, 25 s away): nothing of the
    /// account arrives on a socket joined with its token any more.
    @Test func signingOutClosesTheChannelAtOnce() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            try await daemon.wait(for: "the channel to be live") { try await daemon.send(StatusRequest()).live.state == .live }
            _ = try await daemon.send(LogoutRequest())
            let live = try await eventually(tries: 30, every: .milliseconds(100)) { try await daemon.send(StatusRequest()).live } until: { $0.state == .down }
            #expect(live.state == .down && live.reason == "signed out or offline", "\(live)")
        }
    }

    /// The first `users.changed` that lists `username`, or nil if none came within `seconds`.
    func firstUsersChange(on watcher: SplashClient, listing username: String, within seconds: Int = 10) async throws -> UsersChange? {
        let users = try await watcher.firstEvent(within: seconds) { event -> UsersChange? in
            guard case .usersChanged(let users) = event, users.recent.contains(where: { $0.username == username }) else { return nil }
            return users
        }
        await watcher.close()
        return users
    }

    /// A sign-up anywhere reaches a live daemon at once: `users.changed` with the newcomer among the
    /// recent sign-ups, and `users count` answers it without asking again.
    @Test func aSignUpElsewhereIsAnnouncedAtOnce() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync())
            try await a.wait(for: "A's channel to be live") { try await a.send(StatusRequest()).live.state == .live }
            let before = try await a.send(UsersCountRequest()).count
            let watcher = try SplashClient.connect(socketPath: a.process.socketPath)
            _ = try await watcher.send(SubscribeRequest(types: ["users.changed"]))
            let tag = UUID().uuidString.prefix(8).lowercased()
            _ = try await devstack.signUp(email: "newcomer-\(tag)@example.com", password: Splashd.password)
            // The username the server makes of the address: its local part, '-' made '_'.
            let username = "newcomer_\(tag)"
            let users = try #require(try await firstUsersChange(on: watcher, listing: username), "no users.changed with \(username) within 10 s")
            #expect(users.count > before)
            let counted = try await a.send(UsersCountRequest())
            #expect(counted.count > before && !counted.stale)
        }
    }

    /// A `users.changed` counts everyone it lists, though its list and its count are two requests and
    /// a sign-up can land between them. Here one does, every time: the server holds the list back
    /// while a newcomer signs up. (Asked count first, the change listed the newcomer with the count
    /// from before them, and `users count` answered that count: a fresh-clone run failed so.)
    @Test func aUsersChangeCountsEveryoneItLists() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let a = try await fixture.splashd(.sync())
            try await a.wait(for: "A's channel to be live") { try await a.send(StatusRequest()).live.state == .live }
            let watcher = try SplashClient.connect(socketPath: a.process.socketPath)
            _ = try await watcher.send(SubscribeRequest(types: ["users.changed"]))
            let listRoute = "GET /rest/v1/recent_signups"
            let listsAsked = try await devstack.requests(path: listRoute)
            try await devstack.faults(#"[{"path": "/rest/v1/recent_signups", "method": "GET", "action": "delay", "delay_ms": 1500, "times": 1}]"#)
            let tag = UUID().uuidString.prefix(8).lowercased()
            // A first sign-up starts a refresh; the newcomer signs up while the server holds its list.
            _ = try await devstack.signUp(email: "first-\(tag)@example.com", password: Splashd.password)
            try await a.wait(for: "the refresh to ask for the newest sign-ups") { try await devstack.requests(path: listRoute) > listsAsked }
            _ = try await devstack.signUp(email: "newcomer-\(tag)@example.com", password: Splashd.password)
            // No one else signs up on this suite's devstack: this is the count with the newcomer.
            let stats = try await devstack.serviceRead("user_stats?select=user_count")
            let withNewcomer = try #require(stats.first?["user_count"] as? Int, "user_stats: \(stats)")
            let users = try #require(try await firstUsersChange(on: watcher, listing: "newcomer_\(tag)"), "no users.changed with the newcomer within 10 s")
            #expect(users.count >= withNewcomer, "the change lists the newcomer: \(users)")
            #expect(try await a.send(UsersCountRequest()).count >= withNewcomer)
            try await devstack.clearFaults()
        }
    }

    /// An edit made on A downloads on B, rendering and all, with no sync on B; a rename on A shows on B.
    @Test func anEditAndARenameOnOneDeviceReachTheOther() async throws {
        let devstack = try Devstack.require()
        try await devstack.reset()
        try await SplashdFixture.run { fixture in
            let (a, b) = try await twoDevices(fixture)
            let photo = try #require(try await a.seedCatalogue(count: 1).first)
            let edit = try await a.client.send(EditsCreateRequest(id: photo.id, filters: [FilterStep(filter: "noir")]))
            let onB = try await eventually(tries: 100, every: .milliseconds(100)) {
                try await b.client.send(EditsListRequest()).edits
            } until: { edits in edits.contains { $0.editId == edit.editId && $0.path.map(FileManager.default.fileExists) == true } }
            let rendering = try #require(onB.first { $0.editId == edit.editId }?.path, "the edit never reached B: \(onB)")
            #expect(FileManager.default.contents(atPath: rendering) == (try Data(contentsOf: URL(fileURLWithPath: try #require(edit.path)))))

            let name = uniqueUsername("live")
            _ = try await a.client.send(SetUsernameRequest(username: name))
            let profile = try await eventually(tries: 100, every: .milliseconds(100)) {
                try await b.client.send(ProfileGetRequest()).profile.username
            } until: { $0 == name }
            #expect(profile == name, "B still shows \(profile ?? "nil")")
        }
    }

    /// Two and a half lifetimes of 8-second tokens: the sessions refresh, each new token reaches the
    /// live channel before the old one runs out (devstack closes a channel whose token expired, as
    /// Realtime does), and changes keep arriving.
    @Test func aTokenThatExpiresOnALiveChannelIsReplacedWithoutAGap() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            try await devstack.knobs(["access_token_lifetime": 8])
            fixture.onCleanup { try? await devstack.knobs(["access_token_lifetime": 3600]) }
            let (a, b) = try await twoDevices(fixture)
            let before = try await devstack.realtimeStats()
            for id in try a.seedPhotos(4, prefix: "token") {
                try await Task.sleep(for: .seconds(5))
                _ = try await a.client.send(PhotosLikeRequest(id: id))
                let seen = try await eventually(tries: 50, every: .milliseconds(100)) { try await liked(b) } until: { $0.contains(id) }
                #expect(seen.contains(id), "\(id) did not reach B over a live channel")
            }
            let after = try await devstack.realtimeStats()
            #expect(after["expired"] as? Int == before["expired"] as? Int, "a channel outlived its token: \(after)")
            #expect(try await b.send(StatusRequest()).live.state == .live)
        }
    }
}

extension Devstack {
    /// `GET /_devstack/realtime`: connections, channels, deliveries, channels closed for an expired token.
    func realtimeStats() async throws -> [String: Any] {
        let client = try HTTPClient(configuration: .init(version: "test"))
        let response = try await client.send(HTTPRequest(url: controlURL + "/_devstack/realtime", timeout: .seconds(10)))
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    /// `POST /_devstack/realtime/drop`: every Realtime socket cut without a close frame.
    func dropRealtimeSockets() async throws {
        let client = try HTTPClient(configuration: .init(version: "test"))
        let response = try await client.send(HTTPRequest(method: "POST", url: controlURL + "/_devstack/realtime/drop", timeout: .seconds(10)))
        guard response.status == 200 else { throw DevstackError.failed("realtime drop: HTTP \(response.status)") }
    }
}
