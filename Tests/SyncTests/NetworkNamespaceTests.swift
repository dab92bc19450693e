#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shared
import SplashClient
import Testing
import TestSupport

/// devstack in a network namespace the test creates, splashd in the test's own, a veth pair between:
/// the link goes down, the daemon notices and keeps every like made meanwhile; the link comes back and
/// every like reaches the server, once. Needs root (CI runs as root).
@Suite(.serialized, .enabled(if: getuid() == 0, "network namespaces need root"))
struct NetworkNamespaceTests {
    @Test func linkDownGoesOfflineAndLinkUpDeliversEveryLikeOnce() async throws {
        let tag = String(UUID().uuidString.prefix(6)).lowercased()
        // Two namespaces, neither with a default route: nothing the test sends can leave the machine.
        let daemonNS = "sd-d-\(tag)", serverNS = "sd-s-\(tag)"
        let daemonEnd = "vd\(tag)", serverEnd = "vs\(tag)"
        let octet = Int.random(in: 1...250)
        let daemonIP = "10.231.\(octet).1", serverIP = "10.231.\(octet).2"
        try await SplashdFixture.run { fixture in
            try await ip(["netns", "add", daemonNS])
            fixture.onCleanup { try? await ip(["netns", "del", daemonNS]) }
            try await ip(["netns", "add", serverNS])
            fixture.onCleanup { try? await ip(["netns", "del", serverNS]) }
            try await ip(["link", "add", daemonEnd, "netns", daemonNS, "type", "veth", "peer", "name", serverEnd, "netns", serverNS])
            for (ns, end, address) in [(daemonNS, daemonEnd, daemonIP), (serverNS, serverEnd, serverIP)] {
                try await ip(["netns", "exec", ns, "ip", "addr", "add", "\(address)/30", "dev", end])
                try await ip(["netns", "exec", ns, "ip", "link", "set", end, "up"])
                try await ip(["netns", "exec", ns, "ip", "link", "set", "lo", "up"])
            }

            let devstack = try await Devstack.up(namespace: serverNS, host: serverIP)
            fixture.onCleanup { await devstack.down() }
            let daemon = try await fixture.splashd(.init(
                devstack: devstack, account: .signUp, environment: ["SPLASHD_PLAIN_HTTP_HOSTS": serverIP],
                launcher: ["/usr/sbin/ip", "netns", "exec", daemonNS]))
            let client = daemon.client
            #expect(await waitForState(client, .online, within: .seconds(15)) != nil, "never online: \(daemon.process.stderr)")
            let ids = try daemon.seedPhotos(100, prefix: "ns")

            let down = ContinuousClock.now
            try await ip(["netns", "exec", daemonNS, "ip", "link", "set", daemonEnd, "down"])
            let offlineAt = await waitForState(client, .offline, within: .seconds(15))
            #expect(offlineAt != nil, "the daemon did not notice the link going down")
            print("link down → offline in \(offlineAt.map { "\($0 - down)" } ?? "never")")

            for id in ids { _ = try await client.send(PhotosLikeRequest(id: id)) }
            let queued = try await client.send(StatusRequest()).outbox
            #expect(queued.pending + queued.inFlight == 100, "\(queued)")

            let up = ContinuousClock.now
            try await ip(["netns", "exec", daemonNS, "ip", "link", "set", daemonEnd, "up"])
            let server = try await eventually(tries: 600, every: .milliseconds(50), {
                try await Self.serverLikes(devstack, namespace: serverNS, email: daemon.account)
            }, until: { $0.count >= 100 })
            print("link up → 100 likes on the server in \(ContinuousClock.now - up)")
            #expect(Set(server.keys) == Set(ids), "server has \(server.count) of 100; the daemon's log:\n\(daemon.process.stderr)")
            #expect(server.values.allSatisfy { !$0 })
        }
    }

    /// When the daemon's connectivity reached `state`, read every 25 ms; nil if not `within`.
    func waitForState(_ client: SplashClient, _ state: ConnectivityStatus.State, within: Duration) async -> ContinuousClock.Instant? {
        let seen = await eventually(tries: Int(within / .milliseconds(25)), every: .milliseconds(25), {
            (try? await client.send(StatusRequest()))?.connectivity.state
        }, until: { $0 == state })
        return seen == state ? .now : nil
    }

    func ip(_ arguments: [String]) async throws {
        let result = try await ChildProcess.run("/usr/sbin/ip", arguments, environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        guard result.status == 0 else { throw DevstackError.failed("ip \(arguments.joined(separator: " ")): \(result.stderr)") }
    }

    /// What the server holds, read from inside the server's namespace (the test's own has no route
    /// to it), as the service role.
    static func serverLikes(_ devstack: Devstack, namespace: String, email: String) async throws -> [String: Bool] {
        let script = """
            import json, sys, urllib.request
            base, key, email = sys.argv[1:4]
            def get(path):
                request = urllib.request.Request(base + "/rest/v1/" + path, headers={"apikey": key, "Authorization": "Bearer " + key})
                return json.load(urllib.request.urlopen(request, timeout=10))
            users = get("profiles?select=id&email=eq." + email)
            rows = get("likes?select=photo_id,deleted_at&user_id=eq." + users[0]["id"]) if users else []
            print(json.dumps({row["photo_id"]: row["deleted_at"] is not None for row in rows}))
            """
        let result = try await ChildProcess.run(
            "/usr/sbin/ip", ["netns", "exec", namespace, "/usr/bin/python3", "-c", script,
                             devstack.backendURL, devstack.env["DEVSTACK_SERVICE_ROLE_KEY"] ?? "", email],
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        guard result.status == 0 else { throw DevstackError.failed("reading the server's likes: \(result.stderr)") }
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Bool]) ?? [:]
    }
}
