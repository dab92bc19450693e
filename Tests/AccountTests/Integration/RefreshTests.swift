@testable import Account
import Foundation
import HTTP
import Logging
import Shared
import Store
import Supabase
import Synchronization
import Testing
import TestSupport

/// The session manager in process against a real devstack: single-flight refresh under concurrent
/// load, measured with devstack's request counters.
@Suite(.devstack, .serialized)
struct RefreshTests {
    let directory = TemporaryDirectory()

    /// What the manager published, in order.
    final class Published: Sendable {
        let statuses = Mutex<[AccountStatus]>([])
        var last: AccountStatus.State? { statuses.withLock { $0.last?.state } }
    }

    private func makeManager(_ devstack: Devstack) throws -> (SessionManager, SupabaseBackend, Published) {
        let http = try HTTPClient(configuration: .init(version: "test"))
        let backend = SupabaseBackend(http: http, baseURL: devstack.backendURL, anonKey: devstack.anonKey)
        let store = try Store(path: directory.file("s.sqlite"))
        let published = Published()
        let manager = SessionManager(
            auth: SupabaseAuthAPI(backend: backend), file: SessionFile(directory: directory.path), accounts: AccountStore(store: store),
            logger: Logger(label: "test"), publish: { status in published.statuses.withLock { $0.append(status) } })
        return (manager, backend, published)
    }

    /// Reads the caller's own profile through PostgREST with the session's token.
    private static func readProfile(_ manager: SessionManager, _ backend: SupabaseBackend) async throws(AccountFailure) -> Int {
        try await manager.authorized { token throws(BackendError) in
            let response = try await backend.send("GET", "/rest/v1/profiles", query: [("select", "id,username")], bearer: token)
            return response.status
        }
    }

    @Test func thirtyTwoRequestsWithAnExpiredTokenMakeOneRefresh() async throws {
        let devstack = try Devstack.require()
        let (manager, backend, _) = try makeManager(devstack)
        try await devstack.knobs(["access_token_lifetime": 2])
        let email = uniqueEmail("flight")
        try await manager.signUp(email: email, password: "secret12", username: uniqueUsername())
        try await devstack.knobs(["access_token_lifetime": 3600])
        try await Task.sleep(for: .milliseconds(2200))  // the token is now expired on both sides
        let before = try await devstack.requests("POST /auth/v1/token")

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<32 { group.addTask { try await Self.readProfile(manager, backend) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let refreshes = try await devstack.requests("POST /auth/v1/token") - before
        #expect(statuses.count == 32 && statuses.allSatisfy { $0 == 200 })
        #expect(refreshes == 1, "32 concurrent requests made \(refreshes) refreshes")
        #expect(await manager.refreshesSent == 1)
    }

    @Test func thirtyTwo401sFromTheServerMakeOneRefresh() async throws {
        // The daemon believes its token is good for an hour; the server says it has expired: every
        // request gets a real 401 PGRST303, and they share one refresh.
        let devstack = try Devstack.require()
        let (first, _, _) = try makeManager(devstack)
        try await devstack.knobs(["access_token_lifetime": 1])
        try await first.signUp(email: uniqueEmail("storm"), password: "secret12", username: uniqueUsername())
        try await devstack.knobs(["access_token_lifetime": 3600])
        let file = SessionFile(directory: directory.path)
        guard case .session(var saved) = file.load() else {
            Issue.record("no session saved")
            return
        }
        saved.expiresAt = Date().addingTimeInterval(3600)
        saved.obtainedAt = Date()
        try file.save(saved)
        try await Task.sleep(for: .milliseconds(1200))

        let (manager, backend, published) = try makeManager(devstack)
        await manager.restore()
        #expect(published.last == .signedInOffline)
        let before = try await devstack.requests("POST /auth/v1/token")
        let unauthorizedBefore = try await devstack.requests("GET /rest/v1/{name}")
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<32 { group.addTask { try await Self.readProfile(manager, backend) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let refreshes = try await devstack.requests("POST /auth/v1/token") - before
        let reads = try await devstack.requests("GET /rest/v1/{name}") - unauthorizedBefore
        #expect(statuses.allSatisfy { $0 == 200 })
        #expect(refreshes == 1, "32 concurrent 401s made \(refreshes) refreshes")
        #expect(reads > 32, "the first attempts were refused and retried (\(reads) reads)")
        #expect(published.last == .signedIn)
    }

    @Test func transientRefreshFailuresKeepTheSession() async throws {
        let devstack = try Devstack.require()
        let (manager, _, _) = try makeManager(devstack)
        try await manager.signUp(email: uniqueEmail("keep"), password: "secret12", username: uniqueUsername())
        for status in [429, 500, 503] {
            try await devstack.faults(#"[{"path": "/auth/v1/token", "method": "POST", "status": \#(status), "times": 1}]"#)
            let outcome = await manager.refresh(force: true)
            guard case .failed = outcome else {
                Issue.record("HTTP \(status) on refresh: \(outcome)")
                continue
            }
            #expect(await manager.currentUser != nil, "HTTP \(status) must not sign out")
        }
        // Garbage with a 200.
        try await devstack.faults(#"[{"path": "/auth/v1/token", "method": "POST", "status": 200, "body": "<html>hello</html>", "content_type": "text/html", "times": 1}]"#)
        guard case .failed(.malformed) = await manager.refresh(force: true) else {
            Issue.record("a garbage 200 must be reported as malformed")
            return
        }
        #expect(await manager.currentUser != nil)
        // Until the backoff ends, callers get the last failure without another request.
        let before = try await devstack.requests("POST /auth/v1/token")
        guard case .failed = await manager.refresh() else {
            Issue.record("a refresh inside the backoff must not be sent")
            return
        }
        #expect(try await devstack.requests("POST /auth/v1/token") == before)
        try await devstack.clearFaults()
        #expect(await manager.refresh(force: true) == .refreshed)
    }

    @Test func revokedSessionSignsOutOnRefresh() async throws {
        let devstack = try Devstack.require()
        let (manager, _, _) = try makeManager(devstack)
        let email = uniqueEmail("revoked")
        try await manager.signUp(email: email, password: "secret12", username: uniqueUsername())
        try await devstack.revokeSessions(email: email)
        #expect(await manager.refresh() == .signedOut)
        #expect(await manager.currentUser == nil)
        #expect(await manager.lastSignedOutReason?.english.contains("the server ended the session") == true)
        #expect(SessionFile(directory: directory.path).load() == .none)
    }

    @Test func crashBetweenRotationAndSaveStillRefreshes() async throws {
        // The server rotated the refresh token but the daemon died before saving the new one: the
        // file still holds the parent, which Auth answers with the active child.
        let devstack = try Devstack.require()
        let (manager, _, _) = try makeManager(devstack)
        try await manager.signUp(email: uniqueEmail("crash"), password: "secret12", username: uniqueUsername())
        let file = SessionFile(directory: directory.path)
        guard case .session(let beforeRotation) = file.load() else {
            Issue.record("no session saved")
            return
        }
        #expect(await manager.refresh() == .refreshed)
        try file.save(beforeRotation)  // as if the new file never reached the disk

        let (restarted, _, _) = try makeManager(devstack)
        await restarted.restore()
        #expect(await restarted.refresh() == .refreshed)
        #expect(await restarted.currentUser?.id == beforeRotation.user.id)
        guard case .session(let after) = file.load() else {
            Issue.record("the refreshed session was not saved")
            return
        }
        #expect(after.refreshToken != beforeRotation.refreshToken)
    }
}
