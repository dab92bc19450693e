import Foundation
import GRDB
import Shared
import SplashClient
import Store
import Testing
import TestSupport

/// The real splashd and splashctl against a devstack of the suite's own.
@Suite(.devstack, .serialized)
struct AccountDaemonTests {
    /// `splashctl login --provider github` with a scripted browser as $BROWSER (curl following the
    /// redirects, as a person's browser would): the daemon's listener gets the code, the session is a
    /// session like any other, and no code, verifier or token reaches the log.
    @Test func loginWithAProviderThroughTheBrowser() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.accountTests())
            let email = uniqueEmail("gh")
            let browser = "f() { curl -sf -L -o /dev/null --max-time 20 \"$1&login_hint=\(email)\"; }; f"
            let login = try await daemon.ctl(["login", "--provider", "github", "--no-adopt-guest"], environment: ["BROWSER": browser])
            #expect(login.status == 0, "\(login.stderr)")
            #expect(login.stdout.contains(email) && login.stderr.contains("Sign in in your browser"), "\(login.stdout) \(login.stderr)")
            let whoami = try await daemon.send(WhoamiRequest())
            #expect(whoami.account.state == .signedIn && whoami.account.email == email)
            // The server made the profile from the address, as for any new account.
            let local = email.split(separator: "@")[0].replacingOccurrences(of: "-", with: "_").lowercased()
            #expect(try await daemon.send(ProfileGetRequest()).profile.username == local)
            #expect(!daemon.process.stderr.contains("code=") && !daemon.process.stderr.contains("code_verifier"))

            // Both ways of signing in at once, or neither, is a usage error; a flow nobody began is not found.
            #expect(try await daemon.ctl(["login", "--provider", "google", "--email", email]).status == 64)
            #expect(await daemon.error(ProviderFinishRequest(flow: "nobody"))?.kind == .notFound)
            #expect(await daemon.error(ProviderFinishRequest(flow: "x", waitSeconds: 0))?.kind == .invalidInput)
        }
    }

    @Test func signupWhoamiLogoutLoginOverTheSocket() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.accountTests())
            let email = uniqueEmail("ana")
            let username = uniqueUsername("ana")

            #expect(try await daemon.send(WhoamiRequest()).account.state == .signedOut)
            let signedUp = try await daemon.send(SignupRequest(email: email, password: "secret12", username: username))
            #expect(signedUp.account.state == .signedIn)
            #expect(signedUp.account.username == username)
            #expect(signedUp.profile?.sync == .synced)
            let status = try await daemon.send(StatusRequest())
            #expect(status.account.email == email)

            // No token or password in any answer.
            let raw = try await daemon.client.sendRaw(WhoamiRequest())
            let text = String(decoding: try JSONCoding.encoder().encode(raw), as: UTF8.self)
            #expect(!text.contains("secret12") && !text.contains("access_token") && !text.contains("refresh_token"))

            let logout = try await daemon.send(LogoutRequest())
            #expect(logout.serverNotified)
            #expect(try await daemon.send(WhoamiRequest()).account.state == .signedOut)
            #expect(await daemon.error(LogoutRequest())?.kind == .notSignedIn)
            #expect(await daemon.error(ProfileGetRequest())?.kind == .notSignedIn)

            let wrong = await daemon.error(LoginRequest(email: email, password: "not-it-at-all"))
            #expect(wrong?.kind == .rejected)
            #expect(wrong?.message == "wrong e-mail or password")
            let again = try await daemon.send(LoginRequest(email: email, password: "secret12"))
            #expect(again.account.state == .signedIn)
            #expect(again.account.username == username)

            let exists = await daemon.error(SignupRequest(email: email, password: "secret12", username: uniqueUsername()))
            #expect(exists?.kind == .conflict)
            let weak = await daemon.error(SignupRequest(email: uniqueEmail("weak"), password: "abc", username: uniqueUsername()))
            #expect(weak?.kind == .invalidInput)
            #expect(weak?.message.contains("shorter than 6") == true)

            let count = try await daemon.send(UsersCountRequest())
            #expect(count.count >= 1 && !count.stale)
            let recent = try await daemon.send(UsersRecentRequest(limit: 100))
            #expect(recent.users.contains { $0.username == username })
            #expect(!daemon.process.stderr.contains("secret12"), "a password reached the log")
            // Nor do the tokens, even at debug level.
            let saved = try #require(FileManager.default.contents(atPath: daemon.stateDir + "/session.json"))
            let tokens = try #require(try JSONSerialization.jsonObject(with: saved) as? [String: Any])
            for key in ["accessToken", "refreshToken"] {
                let token = try #require(tokens[key] as? String)
                #expect(!daemon.process.stderr.contains(token), "the \(key) reached the log")
            }
        }
    }

    @Test func splashctlCommands() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.accountTests())
            let email = uniqueEmail("ctl")
            let username = uniqueUsername("ctl")

            let signup = try await daemon.ctl(["signup", "--email", email, "--username", username, "--password-stdin"], stdin: "secret12\n")
            #expect(signup.status == 0, "\(signup.stderr)")
            #expect(signup.stdout.contains("signed in as \(username)"))
            let whoami = try await daemon.ctl(["whoami"])
            #expect(whoami.status == 0 && whoami.stdout.contains(email), "\(whoami)")
            let renamed = username + "_x"
            let set = try await daemon.ctl(["profile", "set-username", renamed])
            #expect(set.status == 0 && set.stdout.contains(renamed))
            try await daemon.wait(for: "the new username to reach the server") {
                try await daemon.send(ProfileGetRequest()).profile.sync == .synced
            }
            let profile = try await daemon.ctl(["profile", "show", "--refresh"])
            #expect(profile.status == 0 && profile.stdout.contains(renamed) && profile.stdout.contains("in sync"), "\(profile)")
            let bad = try await daemon.ctl(["profile", "set-username", "No Spaces"])
            #expect(bad.status == 64)
            let count = try await daemon.ctl(["users", "count"])
            // "1 account" when this test's account is the server's only one (the test run alone), else "N accounts".
            #expect(count.status == 0 && count.stdout.contains(/\d+ accounts?\b/), "\(count)")
            let recent = try await daemon.ctl(["users", "recent", "--limit", "5"])
            #expect(recent.status == 0 && recent.stdout.contains("USERNAME"))
            let json = try await daemon.ctl(["--json", "whoami"])
            #expect(json.stdout.contains(#""state":"signed_in""#))
            let logout = try await daemon.ctl(["logout"])
            #expect(logout.status == 0 && logout.stdout.contains("signed out"))
            let wrong = try await daemon.ctl(["login", "--email", email, "--password-stdin"], stdin: "wrong-password\n")
            #expect(wrong.status == 65 && wrong.stderr.contains("wrong e-mail or password"))
            let login = try await daemon.ctl(["login", "--email", email, "--password-stdin"], stdin: "secret12\n")
            #expect(login.status == 0, "\(login.stderr)")
            let exists = try await daemon.ctl(["signup", "--email", email, "--username", "someone_else", "--password-stdin"], stdin: "secret12\n")
            #expect(exists.status == 65 && exists.stderr.contains("already exists"))
            let weak = try await daemon.ctl(["signup", "--email", uniqueEmail(), "--username", "weakling", "--password-stdin"], stdin: "abc\n")
            #expect(weak.status == 65 && weak.stderr.contains("too weak"))
            let badEmail = try await daemon.ctl(["login", "--email", "", "--password-stdin"], stdin: "secret12\n")
            #expect(badEmail.status == 64)
            // A name taken at sign-up is made unique by the server, and splashctl says so.
            let twin = try await daemon.ctl(["signup", "--email", uniqueEmail("twin"), "--username", renamed, "--password-stdin"], stdin: "secret12\n")
            #expect(twin.status == 0 && twin.stdout.contains("was taken; the server chose"), "\(twin.stdout)")
        }
    }

    @Test func shortLivedTokensUnder32ConcurrentRequestsMakeOneRefresh() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.accountTests())
            try await devstack.knobs(["access_token_lifetime": 3])
            _ = try await daemon.send(SignupRequest(email: uniqueEmail("burst"), password: "secret12", username: uniqueUsername()))
            try await devstack.knobs(["access_token_lifetime": 3600])
            let before = try await devstack.requests("POST /auth/v1/token")
            try await Task.sleep(for: .milliseconds(1600))  // past half the lifetime: the refresh is due
            let socket = daemon.process.socketPath
            let results = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<32 {
                    group.addTask {
                        let client = try SplashClient.connect(socketPath: socket)
                        let result = try await client.send(ProfileGetRequest(refresh: true))
                        await client.close()
                        return !result.stale
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            try await Task.sleep(for: .milliseconds(2000))  // past expiry: any second refresh would show
            let refreshes = try await devstack.requests("POST /auth/v1/token") - before
            #expect(results.count == 32 && results.allSatisfy { $0 })
            #expect(refreshes == 1, "\(refreshes) refreshes for 32 concurrent requests")
        }
    }

    @Test func revokedRefreshTokenSignsOutAndKeepsTheOutbox() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.accountTests())
            let email = uniqueEmail("revoked")
            try await devstack.knobs(["access_token_lifetime": 4])
            let signedUp = try await daemon.send(SignupRequest(email: email, password: "secret12", username: uniqueUsername()))
            try await devstack.knobs(["access_token_lifetime": 3600])
            let userId = try #require(signedUp.account.userId)
            // The push fails with 503 so the change stays queued.
            try await devstack.faults(#"[{"path": "/rest/v1/profiles*", "method": "PATCH", "status": 503}]"#)
            _ = try await daemon.send(SetUsernameRequest(username: uniqueUsername("queued")))
            try await devstack.revokeSessions(email: email)

            try await daemon.wait(for: "the refresh to find the session revoked") {
                try await daemon.send(StatusRequest()).account.state == .signedOut
            }
            try await devstack.clearFaults()
            let whoami = try await daemon.send(WhoamiRequest())
            #expect(whoami.signedOutReason?.contains("the server ended the session") == true)
            #expect(whoami.signedOutReason?.contains("1 queued change") == true)
            let status = try await daemon.send(StatusRequest())
            #expect(status.outbox.pending + status.outbox.inFlight == 1)
            #expect(daemon.process.stderr.contains("<4>signed out by the server"), "a warning in the log")
            let statusLine = await daemon.process.notify?.wait(for: .seconds(5)) { $0.contains("STATUS=") && $0.contains("signed out") }
            #expect(statusLine != nil, "systemd's STATUS line says signed out")

            // The queued change is still there, for this account only.
            let store = try Store(path: daemon.stateDir + "/splashd.sqlite")
            let owners = try store.read { db in try String.fetchAll(db, sql: "SELECT account_id FROM outbox WHERE entity = 'profile'") }
            #expect(owners == [userId])

            // Another account signing in does not push it.
            _ = try await daemon.send(SignupRequest(email: uniqueEmail("other"), password: "secret12", username: uniqueUsername()))
            try await Task.sleep(for: .milliseconds(500))
            let stillQueued = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE account_id = ?", arguments: [userId]) }
            #expect(stillQueued == 1)
        }
    }

    @Test func startedWithTheBackendUnreachableIsSignedInOffline() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let first = try await fixture.splashd(.accountTests())
            let username = uniqueUsername("away")
            _ = try await first.send(SignupRequest(email: uniqueEmail("away"), password: "secret12", username: username))
            let counted = try await first.send(UsersCountRequest())
            _ = try await first.send(UsersRecentRequest())
            await first.stop()

            // Same directories, a backend that refuses connections.
            let second = try await fixture.splashd(.accountTests(
                directory: first.directory,
                environment: ["SPLASHD_BACKEND_URL": "http://127.0.0.1:9", "SPLASHD_ANON_KEY": devstack.anonKey],
                notify: false))  // the first daemon's notify socket is still bound in this directory
            let whoami = try await second.send(WhoamiRequest())
            #expect(whoami.account.state == .signedInOffline)
            #expect(whoami.account.username == username)
            let profile = try await second.send(ProfileGetRequest(refresh: true))
            #expect(profile.stale)
            #expect(profile.profile.username == username)
            let count = try await second.send(UsersCountRequest())
            #expect(count.stale && count.count == counted.count)
            let recent = try await second.send(UsersRecentRequest())
            #expect(recent.stale && recent.users.contains { $0.username == username })
            // A change made offline is applied at once and queued.
            let set = try await second.send(SetUsernameRequest(username: username + "_2"))
            #expect(set.profile.sync == .pending && set.profile.username == username + "_2")
            // Still signed in after the confirmation attempt failed.
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await second.send(StatusRequest()).account.state == .signedInOffline)
            let login = await second.error(LoginRequest(email: uniqueEmail(), password: "secret12"))
            #expect(login?.kind == .offline)
        }
    }

    @Test func aRestoredSessionIsOnlineWhenTheBackendAnswersThoughItsConfirmationIsSlow() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let first = try await fixture.splashd(.accountTests())
            _ = try await first.send(SignupRequest(email: uniqueEmail("slow"), password: "secret12", username: uniqueUsername()))
            await first.stop()

            // The confirmation (`GET /auth/v1/user`) is answered 20 s late, as over a slow network; the
            // health probe and the account's other requests are answered at once.
            try await devstack.faults(#"[{"path": "/auth/v1/user", "method": "GET", "delay_ms": 20000}]"#)
            fixture.onCleanup { try? await devstack.clearFaults() }
            let second = try await fixture.splashd(.accountTests(directory: first.directory, notify: false))
            try await second.wait(for: "the confirmation to be on its way") {
                second.process.stderr.contains("confirming the restored session")
            }
            try await second.wait(for: "the account to agree with the connectivity monitor") {
                let status = try await second.send(StatusRequest())
                return status.connectivity.state == .online && status.account.state == .signedIn
            }
            #expect(!second.process.stderr.contains("session confirmed by the server"), "the confirmation was meant to be still on its way")
        }
    }

    @Test func corruptSessionFileIsMovedAsideWithAClearStatus() async throws {
        try await SplashdFixture.run { fixture in
            let directory = fixture.directory()
            try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
            try Data(#"{"access_token": 42, "oops"#.utf8).write(to: URL(fileURLWithPath: directory + "/state/session.json"))
            let daemon = try await fixture.splashd(.accountTests(directory: directory))
            let whoami = try await daemon.send(WhoamiRequest())
            #expect(whoami.account.state == .signedOut)
            #expect(whoami.signedOutReason?.contains("moved to") == true)
            let files = try FileManager.default.contentsOfDirectory(atPath: directory + "/state")
            #expect(!files.contains("session.json"))
            #expect(files.contains { $0.hasPrefix("session.json.corrupt-") })
            #expect(daemon.process.stderr.contains("session file unreadable"))
            let error = await daemon.error(ProfileGetRequest())
            #expect(error?.message.contains("moved to") == true)
        }
    }

    @Test func badInputAndAHostileServer() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.accountTests())
            #expect(await daemon.error(LoginRequest(email: "", password: "secret12"))?.data?.field == "email")
            #expect(await daemon.error(LoginRequest(email: String(repeating: "a", count: 300) + "@x.io", password: "secret12"))?.kind == .invalidInput)
            #expect(await daemon.error(SignupRequest(email: uniqueEmail(), password: "secret12", username: ""))?.data?.field == "username")
            #expect(await daemon.error(SignupRequest(email: uniqueEmail(), password: "secret12", username: String(repeating: "z", count: 33)))?.kind == .invalidInput)
            #expect(await daemon.error(SetUsernameRequest(username: "Robert'); DROP TABLE--"))?.kind == .invalidInput)
            #expect(await daemon.error(UsersRecentRequest(limit: 0))?.kind == .invalidInput)

            // Garbage with a 200, and an HTML error page.
            try await devstack.faults(#"[{"path": "/auth/v1/token", "status": 200, "body": "{\"access_token\": [1,2", "content_type": "application/json"}]"#)
            let garbage = await daemon.error(LoginRequest(email: uniqueEmail(), password: "secret12"))
            #expect(garbage?.kind == .offline)
            #expect(garbage?.message.contains("cannot read") == true)
            try await devstack.faults(#"[{"path": "/auth/v1/signup", "status": 502, "body": "<html>bad gateway</html>", "content_type": "text/html"}]"#)
            let html = await daemon.error(SignupRequest(email: uniqueEmail(), password: "secret12", username: uniqueUsername()))
            #expect(html?.kind == .offline)
            try await devstack.faults(#"[{"path": "/auth/v1/token", "status": 429, "retry_after": 30, "body": {"code": "over_request_rate_limit", "message": "Request rate limit reached"}}]"#)
            let limited = await daemon.error(LoginRequest(email: uniqueEmail(), password: "secret12"))
            #expect(limited?.kind == .rateLimited)
            #expect(limited?.data?.retryAfter == 30)
            try await devstack.clearFaults()
            #expect(try await daemon.send(PingRequest()).pong)
        }
    }

    @Test func usernameTakenOnTheServerIsRejectedAndKept() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.accountTests())
            let taken = uniqueUsername("taken")
            _ = try await daemon.send(SignupRequest(email: uniqueEmail("first"), password: "secret12", username: taken))
            let mine = uniqueUsername("mine")
            _ = try await daemon.send(SignupRequest(email: uniqueEmail("second"), password: "secret12", username: mine))
            let set = try await daemon.send(SetUsernameRequest(username: taken))
            #expect(set.profile.username == taken)  // applied here at once
            try await daemon.wait(for: "the server to refuse the name") {
                try await daemon.send(ProfileGetRequest()).profile.sync == .rejected
            }
            let profile = try await daemon.send(ProfileGetRequest()).profile
            #expect(profile.rejectedReason?.contains("already taken") == true)
            #expect(profile.username == mine, "the server's name is shown again")
            #expect(try await daemon.send(StatusRequest()).outbox.rejected == 1)
        }
    }

    /// `profile set-username NAME --wait` waits for the server: "updated", or the server's refusal
    /// with the rejected kind's exit code (UserBoard showed either).
    @Test func setUsernameWaitSaysUpdatedOrTheServersRefusal() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.accountTests())
            let taken = uniqueUsername("taken")
            _ = try await daemon.send(SignupRequest(email: uniqueEmail("first"), password: "secret12", username: taken))
            _ = try await daemon.send(SignupRequest(email: uniqueEmail("second"), password: "secret12", username: uniqueUsername("mine")))
            let refused = try await daemon.ctl(["profile", "set-username", taken, "--wait"])
            #expect(refused.status == ErrorKind.rejected.exitCode, "\(refused)")
            #expect(refused.stderr.contains("refused the username \(taken)") && refused.stderr.contains("already taken"), "\(refused.stderr)")
            let fresh = uniqueUsername("fresh")
            let updated = try await daemon.ctl(["profile", "set-username", fresh, "--wait"])
            #expect(updated.status == 0 && updated.stdout == "username updated to \(fresh) on the server\n", "\(updated)")
            let json = try await daemon.ctl(["--json", "profile", "set-username", fresh, "--wait"])
            #expect(json.status == 0 && json.stdout.contains(#""state":"unchanged""#), "\(json)")
        }
    }

    /// Connections reset under the username's push and the pull that follows while the health probe
    /// still answers (dropped connections, not a lost network): the change must not stay parked behind
    /// an account that says "offline" beside an online monitor, and `sync.now` sends profile changes as
    /// well as likes and edits, backoff or not. (The chaos converge part's seeds 2017414909 and
    /// 45707833: the rename waited forever and every `sync.now` timed out; and `status` said "signed
    /// in (offline)" beside "online" until a request happened to succeed.)
    @Test func usernamePushCutOffByResetsGoesOutOnTheNextSync() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.accountTests())
            let signedUp = try await daemon.send(SignupRequest(email: uniqueEmail("reset"), password: "secret12", username: uniqueUsername()))
            let userId = try #require(signedUp.account.userId)
            // Every time until both have failed (libcurl itself tries again on other connections when
            // a reused one dies unanswered, so a count of resets would not be enough).
            try await devstack.faults(#"""
                [{"path": "/rest/v1/profiles*", "method": "PATCH", "action": "reset"},
                 {"path": "/rest/v1/likes*", "method": "GET", "action": "reset"}]
                """#)
            let renamed = uniqueUsername("reset")
            _ = try await daemon.send(SetUsernameRequest(username: renamed))
            try await daemon.wait(for: "the push and a pull to meet the resets") {
                let log = daemon.process.stderr
                return log.contains("username push postponed") && log.contains("pull failed")
            }
            // The failures asked the monitor to probe; the backend answers its probe, so it says online,
            // and the account says the same while its own requests are still being reset.
            try await daemon.wait(for: "the account to agree with the connectivity monitor") {
                let status = try await daemon.send(StatusRequest())
                return status.connectivity.state == .online && status.account.state == .signedIn
            }
            // Its next try (after about a second) is told to wait a minute: only `sync.now` can send it sooner.
            try await devstack.faults(#"[{"path": "/rest/v1/profiles*", "method": "PATCH", "status": 503, "retry_after": 60}]"#)
            try await daemon.wait(for: "the retry to be put off for a minute") {
                daemon.process.stderr.contains("splashd_retry_in_s=60")
            }
            try await devstack.clearFaults()

            let synced = try await daemon.send(SyncNowRequest(wait: true, timeoutSeconds: 10))
            #expect(synced.outcome == .drained, "\(synced)")
            #expect(synced.pending + synced.inFlight == 0)
            let rows = try await devstack.serviceRead("profiles?id=eq.\(userId)&select=username")
            #expect(rows.first?["username"] as? String == renamed)
            #expect(try await daemon.send(StatusRequest()).account.state == .signedIn)
        }
    }

    /// `sync.now` asked while a rename is already on its way answers when that push ends. (A `--wait`
    /// in CI sat out its whole timeout: the second push call returned at once, its round still to come,
    /// and nothing told `sync.now` when the first one's answer came.)
    @Test func syncNowDuringARenamesPushAnswersWhenThePushEnds() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.accountTests())
            let signedUp = try await daemon.send(SignupRequest(email: uniqueEmail("during"), password: "secret12", username: uniqueUsername()))
            let userId = try #require(signedUp.account.userId)
            try await devstack.faults(#"[{"path": "/rest/v1/profiles*", "method": "PATCH", "delay_ms": 1500, "times": 1}]"#)
            let renamed = uniqueUsername("during")
            _ = try await daemon.send(SetUsernameRequest(username: renamed))
            try await daemon.wait(for: "the rename to be on its way") {
                try await daemon.send(QueueListRequest()).ops.contains { $0.entity == "profile" && $0.state == "in_flight" }
            }
            let synced = try await daemon.send(SyncNowRequest(wait: true, timeoutSeconds: 20))
            #expect(synced.outcome == .drained, "\(synced)")
            let rows = try await devstack.serviceRead("profiles?id=eq.\(userId)&select=username")
            #expect(rows.first?["username"] as? String == renamed, "\(rows)")
        }
    }

    @Test func aRenamePostponedWhileALaterOneWaitedNeverOverwritesIt() async throws {
        // Chaos converge seed 91877383: the first rename was on its way when the second was made; it
        // came back postponed, and went out after the second, which the server then lost.
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.accountTests())
            let signedUp = try await daemon.send(SignupRequest(email: uniqueEmail("order"), password: "secret12", username: uniqueUsername()))
            let userId = try #require(signedUp.account.userId)
            try await devstack.faults(#"[{"path": "/rest/v1/profiles*", "method": "PATCH", "delay_ms": 1500, "status": 503, "retry_after": 2, "times": 1}]"#)
            let first = uniqueUsername("first"), second = uniqueUsername("second")
            _ = try await daemon.send(SetUsernameRequest(username: first))
            try await daemon.wait(for: "the first rename to be on its way") {
                try await daemon.send(QueueListRequest()).ops.contains { $0.entity == "profile" && $0.state == "in_flight" }
            }
            _ = try await daemon.send(SetUsernameRequest(username: second))
            try await daemon.wait(for: "the first rename to be postponed") { daemon.process.stderr.contains("username push postponed") }
            try await devstack.clearFaults()
            try await daemon.wait(for: "nothing left to send") {
                try await daemon.send(QueueListRequest()).ops.isEmpty
            }
            // Past the first one's Retry-After: nothing more goes out.
            try await Task.sleep(for: .seconds(3))
            let rows = try await devstack.serviceRead("profiles?id=eq.\(userId)&select=username")
            #expect(rows.first?["username"] as? String == second, "\(rows)")
            #expect(try await daemon.send(WhoamiRequest()).account.username == second)
        }
    }

    @Test func profileAndAccountChangesArriveAsEvents() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.accountTests())
            let watcher = try SplashClient.connect(socketPath: daemon.process.socketPath)
            let subscribed = try await watcher.send(SubscribeRequest(types: ["account.changed", "profile.updated"]))
            #expect(subscribed.snapshot.account.state == .signedOut)
            let username = uniqueUsername("ev")
            _ = try await daemon.send(SignupRequest(email: uniqueEmail("ev"), password: "secret12", username: username))
            let renamed = username + "_2"
            _ = try await daemon.send(SetUsernameRequest(username: renamed))
            let seen = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    var sawSignedIn = false
                    var sawRename = false
                    while !(sawSignedIn && sawRename), let notification = try await watcher.nextEvent() {
                        switch notification.event {
                        case .accountChanged(let account) where account.state == .signedIn: sawSignedIn = true
                        case .profileUpdated(let profile) where profile.username == renamed: sawRename = true
                        default: break
                        }
                    }
                    return sawSignedIn && sawRename
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(10))
                    await watcher.close()  // ends the other task's read
                    return false
                }
                let first = try await group.next() ?? false
                group.cancelAll()
                return first
            }
            #expect(seen, "account.changed (signed in) and profile.updated (renamed) within 10 s")
            await watcher.close()
        }
    }

    @Test func withoutABackendTheMethodsSaySo() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.accountTests(backend: false))
            let whoami = try await daemon.send(WhoamiRequest())
            #expect(whoami.account.state == .signedOut)
            let login = await daemon.error(LoginRequest(email: "ana@example.com", password: "secret12"))
            #expect(login?.kind == .offline)
            #expect(login?.message.contains("SPLASHD_BACKEND_URL") == true)
            #expect(await daemon.error(UsersCountRequest())?.kind == .offline)
            #expect(await daemon.error(SetUsernameRequest(username: "ana"))?.kind == .notSignedIn)
        }
    }
}
