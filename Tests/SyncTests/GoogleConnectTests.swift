import Foundation
import HTTP
import Shared
import Testing
import TestSupport

/// splashd's own authorisation with Google against devstack's stand-ins for Google's
/// OAuth endpoints: a scripted browser (an HTTP client following the redirects) plays the person.
@Suite(.serialized, .devstack) struct GoogleConnectTests {
    static let browser = try! HTTPClient(configuration: .init(version: "test-browser"))

    static func connect(_ daemon: Splashd) async throws -> GoogleStatus {
        let start = try await daemon.send(GoogleConnectRequest())
        let page = try await browser.send(HTTPRequest(url: start.url, timeout: .seconds(10), followRedirects: true))
        #expect(page.status == 200, "\(String(decoding: page.body, as: UTF8.self))")
        return try await daemon.send(GoogleConnectFinishRequest(flow: start.flow, waitSeconds: 10))
    }

    /// The tokens Google gave, as the daemon keeps them.
    static func tokens(_ daemon: Splashd) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: daemon.stateDir + "/google.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func connectRefreshDisconnect() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let devstack = try #require(daemon.devstack)
            #expect(try await daemon.send(GoogleStatusRequest()) == GoogleStatus(configured: true, connected: false))

            let start = try await daemon.send(GoogleConnectRequest())
            #expect(start.url.hasPrefix(devstack.controlURL + "/google/o/oauth2/v2/auth?client_id="))
            #expect(start.url.contains("photospicker.mediaitems.readonly") && start.url.contains("code_challenge_method=S256"))
            #expect(try await daemon.send(GoogleConnectFinishRequest(flow: start.flow, waitSeconds: 1)).connected == false, "not back yet")
            let page = try await Self.browser.send(HTTPRequest(url: start.url, timeout: .seconds(10), followRedirects: true))
            #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("You can close this tab"))
            let connected = try await daemon.send(GoogleConnectFinishRequest(flow: start.flow, waitSeconds: 10))
            #expect(connected.connected && connected.scope == "https://www.googleapis.com/auth/photospicker.mediaitems.readonly")

            // Kept 0600, and no token or the client's secret in the log.
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: daemon.stateDir + "/google.json")[.posixPermissions] as? Int)
            #expect(mode == 0o600)
            let tokens = try Self.tokens(daemon)
            for key in ["accessToken", "refreshToken"] {
                let token = try #require(tokens[key] as? String)
                #expect(!daemon.process.stderr.contains(token), "the \(key) reached the log")
            }
            #expect(!daemon.process.stderr.contains(try #require(devstack.env["SPLASHD_GOOGLE_CLIENT_SECRET"])))

            let before = try await devstack.requests("POST /google/token")
            let refreshed = try await daemon.send(GoogleStatusRequest(refresh: true))
            #expect(refreshed.connected && (refreshed.expiresAt ?? .distantPast) >= (connected.expiresAt ?? .distantFuture))
            #expect(try await devstack.requests("POST /google/token") == before + 1)
            #expect(try Self.tokens(daemon)["accessToken"] as? String != tokens["accessToken"] as? String, "the new access token kept")

            let disconnected = try await daemon.send(GoogleDisconnectRequest())
            #expect(disconnected.disconnected && disconnected.googleNotified)
            #expect(!daemon.process.stderr.contains("splashd_kind=google_ended"), "a disconnect the person asked for is no news")
            #expect(try await devstack.requests("POST /google/revoke") == 1)
            #expect(!FileManager.default.fileExists(atPath: daemon.stateDir + "/google.json"))
            #expect(try await daemon.send(GoogleStatusRequest()).connected == false)
            #expect(await daemon.error(GoogleDisconnectRequest())?.kind == .notSignedIn)
        }
    }

    /// Revoked at Google behind splashd's back: the next refresh is refused, the connection ends with
    /// the reason, and connecting again works.
    @Test func aGrantRevokedAtGoogleEndsTheConnection() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let devstack = try #require(daemon.devstack)
            #expect(try await Self.connect(daemon).connected)
            let refresh = try #require(try Self.tokens(daemon)["refreshToken"] as? String)
            let revoked = try await Self.browser.send(HTTPRequest(
                method: "POST", url: try #require(devstack.env["SPLASHD_GOOGLE_REVOKE_URL"]),
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array("token=\(refresh)".utf8)))
            #expect(revoked.status == 200)

            let refused = await daemon.error(GoogleStatusRequest(refresh: true))
            #expect(refused?.kind == .notSignedIn && refused?.message.contains("invalid_grant") == true, "\(String(describing: refused))")
            let status = try await daemon.send(GoogleStatusRequest())
            #expect(!status.connected && status.endedBecause?.contains("revoked") == true)
            #expect(!FileManager.default.fileExists(atPath: daemon.stateDir + "/google.json"))
            // The person did not disconnect: it is news, as a desktop notification (none shows here:
            // no session bus; integration/desktop tests the bus's side).
            #expect(daemon.process.stderr.contains("notification splashd_kind=google_ended"), "\(daemon.process.stderr.suffix(2000))")
            #expect(try await Self.connect(daemon).connected, "connecting again works")
        }
    }

    /// splashctl with $BROWSER as the scripted browser; the person refusing; no client configured.
    @Test func splashctlConnectsAndRefusalsAreClear() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let devstack = try #require(daemon.devstack)
            let browser = ["BROWSER": "curl -sf -L -o /dev/null --max-time 20"]
            let connect = try await daemon.ctl(["google", "connect"], environment: browser)
            #expect(connect.status == 0 && connect.stdout.contains("connected to Google"), "\(connect.stdout) \(connect.stderr)")
            #expect(try await daemon.ctl(["google"]).stdout.contains("connected to Google"))
            #expect(try await daemon.ctl(["google", "disconnect"]).stdout.contains("revoked"))

            try await devstack.knobs(["provider_denies": 1])
            fixture.onCleanup { try? await devstack.knobs(["provider_denies": 0]) }
            let denied = try await daemon.ctl(["google", "connect"], environment: browser)
            #expect(denied.status != 0 && denied.stderr.contains("refused (access_denied)"), "\(denied.stderr)")
            #expect(try await daemon.send(GoogleStatusRequest()).connected == false)

            let bare = try await fixture.splashd(.sync(environment: ["SPLASHD_GOOGLE_CLIENT_ID": ""]))
            #expect(try await bare.ctl(["google", "status"]).stdout.contains("no Google client configured"))
            let refused = await bare.error(GoogleConnectRequest())
            #expect(refused?.kind == .rejected && refused?.message.contains("google.client_id") == true)
        }
    }
}
