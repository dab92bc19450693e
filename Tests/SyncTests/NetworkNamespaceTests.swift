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
        try await ip(["netns", "add", daemonNS])
        try await ip(["netns", "add", serverNS])
        defer {
            _ = try? Self.ipNow(["netns", "del", daemonNS])
            _ = try? Self.ipNow(["netns", "del", serverNS])
        }
        try await ip(["link", "add", daemonEnd, "netns", daemonNS, "type", "veth", "peer", "name", serverEnd, "netns", serverNS])
        for (ns, end, address) in [(daemonNS, daemonEnd, daemonIP), (serverNS, serverEnd, serverIP)] {
            try await ip(["netns", "exec", ns, "ip", "addr", "add", "\(address)/30", "dev", end])
            try await ip(["netns", "exec", ns, "ip", "link", "set", end, "up"])
            try await ip(["netns", "exec", ns, "ip", "link", "set", "lo", "up"])
        }

        let devstack = try await Devstack.up(namespace: serverNS, host: serverIP)
        let dir = TemporaryDirectory()
        var environment = devstack.daemonEnvironment
        environment["SPLASHD_PLAIN_HTTP_HOSTS"] = serverIP
        let process = try DaemonProcess(
            directory: dir.path, environment: environment, withNotifySocket: false,
            launcher: ["/usr/sbin/ip", "netns", "exec", daemonNS])
        let client = try await process.waitUntilListening()
        let email = "ns-\(tag)@example.com"
        do {
            _ = try await client.send(SignupRequest(email: email, password: "correct horse battery", username: "ns_\(tag)"))
            #expect(await waitForState(client, .online, within: .seconds(15)) != nil, "never online: \(process.stderr)")
            let daemon = try await SyncDaemonView(directory: dir.path, client: client)
            let ids = try daemon.seedPhotos(100)

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
            var server: [String: Bool] = [:]
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                server = try await Self.serverLikes(devstack, namespace: serverNS, email: email)
                if server.count >= 100 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            print("link up → 100 likes on the server in \(ContinuousClock.now - up)")
            #expect(Set(server.keys) == Set(ids), "server has \(server.count) of 100")
            #expect(server.values.allSatisfy { !$0 })
        } catch {
            Issue.record("\(error)\n\(process.stderr)")
        }
        await client.close()
        await process.kill9()
        await devstack.down()
    }

    func waitForState(_ client: SplashClient, _ state: ConnectivityStatus.State, within: Duration) async -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + within
        while ContinuousClock.now < deadline {
            if let status = try? await client.send(StatusRequest()), status.connectivity.state == state { return .now }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return nil
    }

    func ip(_ arguments: [String]) async throws {
        let result = try await ChildProcess.run("/usr/sbin/ip", arguments, environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        guard result.status == 0 else { throw DevstackError.failed("ip \(arguments.joined(separator: " ")): \(result.stderr)") }
    }

    /// Cleanup runs in a defer, which cannot await: a plain blocking call is fine there.
    static func ipNow(_ arguments: [String]) throws {
        let child = try ChildProcess(executable: "/usr/sbin/ip", arguments: arguments, environment: [:])
        for _ in 0..<500 where child.isRunning { usleep(10_000) }
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

/// Seeding for a daemon this test started itself.
struct SyncDaemonView {
    let directory: String
    let client: SplashClient

    init(directory: String, client: SplashClient) async throws {
        self.directory = directory
        self.client = client
    }

    func seedPhotos(_ count: Int) throws -> [String] {
        try PhotoSeeder.seed(databasePath: directory + "/state/splashd.sqlite", count: count, prefix: "ns")
    }
}
