#if canImport(Glibc)
import Glibc
#endif
@testable import Account
import Foundation
import HTTP
import Shared
import Supabase
import Testing
import TestSupport

struct SessionExpiryTests {
    private func session(lifetime: TimeInterval, obtainedAt: Date = Date(timeIntervalSince1970: 1_000_000)) -> Session {
        Session(
            accessToken: "a", refreshToken: "r", expiresAt: obtainedAt.addingTimeInterval(lifetime), obtainedAt: obtainedAt,
            user: SessionUser(id: "u", email: "e@x.io"))
    }

    @Test func hourLongTokenRefreshesTwoMinutesEarly() {
        let s = session(lifetime: 3600)
        #expect(s.refreshMargin == 120)
        #expect(!s.isRefreshDue(now: s.obtainedAt.addingTimeInterval(3479)))
        #expect(s.isRefreshDue(now: s.obtainedAt.addingTimeInterval(3480)))
        #expect(!s.isExpired(now: s.obtainedAt.addingTimeInterval(3599)))
        #expect(s.isExpired(now: s.obtainedAt.addingTimeInterval(3600)))
    }

    @Test func shortTokenRefreshesHalfWay() {
        let s = session(lifetime: 4)
        #expect(s.refreshMargin == 2)
        #expect(!s.isRefreshDue(now: s.obtainedAt.addingTimeInterval(1.9)))
        #expect(s.isRefreshDue(now: s.obtainedAt.addingTimeInterval(2)))
    }

    @Test func alreadyExpiredTokenIsDue() {
        let s = session(lifetime: -10)
        #expect(s.refreshMargin == 0)
        #expect(s.isRefreshDue(now: s.obtainedAt))
    }
}

struct SessionFileTests {
    let directory = TemporaryDirectory()
    let sample = Session(
        accessToken: "access", refreshToken: "refresh", expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
        obtainedAt: Date(timeIntervalSince1970: 1_999_996_400),
        user: SessionUser(id: "u1", email: "ana@example.com", metadataUsername: "ana"))

    @Test func savesPrivatelyAndLoadsBack() throws {
        let file = SessionFile(directory: directory.path)
        #expect(file.load() == .none)
        try file.save(sample)
        #expect(file.load() == .session(sample))
        var info = stat()
        #expect(stat(file.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(!FileManager.default.fileExists(atPath: file.path + ".tmp"))
        try file.remove()
        #expect(file.load() == .none)
    }

    @Test func rotationReplacesWholeFile() throws {
        let file = SessionFile(directory: directory.path)
        try file.save(sample)
        var rotated = sample
        rotated.refreshToken = "refresh-2"
        try file.save(rotated)
        #expect(file.load() == .session(rotated))
    }

    @Test(arguments: ["{not json", "", #"{"access_token":"a"}"#, "\u{0}\u{1}binary"])
    func corruptFileIsMovedAsideNotDeleted(_ content: String) throws {
        let file = SessionFile(directory: directory.path)
        try Data(content.utf8).write(to: URL(fileURLWithPath: file.path))
        guard case .corrupt(let movedTo, let problem) = file.load() else {
            Issue.record("expected .corrupt")
            return
        }
        #expect(movedTo != file.path)
        #expect(!problem.english.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(FileManager.default.contents(atPath: movedTo) == Data(content.utf8))
        #expect(file.load() == .none)
    }

    @Test func aTempFileLeftByACrashChangesNothing() throws {
        let file = SessionFile(directory: directory.path)
        try file.save(sample)
        try Data("half a sess".utf8).write(to: URL(fileURLWithPath: file.path + ".tmp"))
        #expect(file.load() == .session(sample))
        var rotated = sample
        rotated.accessToken = "access-2"
        try file.save(rotated)
        #expect(file.load() == .session(rotated))
        #expect(!FileManager.default.fileExists(atPath: file.path + ".tmp"))
    }

    @Test func emptyTokensAreCorrupt() throws {
        let file = SessionFile(directory: directory.path)
        var empty = sample
        empty.refreshToken = ""
        try file.save(empty)
        guard case .corrupt = file.load() else {
            Issue.record("a session without a refresh token must not be used")
            return
        }
    }
}

struct AccountRulesTests {
    @Test(arguments: ["ana", "ana_lima", "a1_", String(repeating: "z", count: 32)])
    func goodUsernames(_ name: String) {
        #expect(AccountRules.usernameProblem(name) == nil)
    }

    @Test(arguments: ["", "ab", "Ana", "ana lima", "ana-lima", "anä", String(repeating: "z", count: 33), "ana\n"])
    func badUsernames(_ name: String) {
        #expect(AccountRules.usernameProblem(name) != nil)
        #expect(throws: RPCError.self) { try SetUsernameRequest(username: name).validate() }
    }

    @Test(arguments: ["", "ana", "ana@", "@example.com", "ana@example", "ana @example.com", String(repeating: "a", count: 250) + "@example.com"])
    func badEmails(_ email: String) throws {
        #expect(AccountRules.emailProblem(email) != nil)
        let error = try #require(throws: RPCError.self) { try LoginRequest(email: email, password: "secret12").validate() }
        #expect(error.kind == .invalidInput)
        #expect(error.data?.field == "email")
    }

    @Test func passwordBounds() {
        #expect(throws: RPCError.self) { try LoginRequest(email: "a@b.co", password: "").validate() }
        #expect(throws: RPCError.self) { try SignupRequest(email: "a@b.co", password: String(repeating: "p", count: 73), username: "ana").validate() }
        #expect(throws: Never.self) { try SignupRequest(email: "a@b.co", password: "secret12", username: "ana").validate() }
    }

    @Test func recentLimitBounds() {
        #expect(throws: RPCError.self) { try UsersRecentRequest(limit: 0).validate() }
        #expect(throws: RPCError.self) { try UsersRecentRequest(limit: 101).validate() }
        #expect(throws: Never.self) { try UsersRecentRequest(limit: 100).validate() }
    }
}

/// The session manager's schedule: backoff after failures, what a caller gets meanwhile, and when a
/// session is next due.
struct RefreshScheduleTests {
    let now = Date(timeIntervalSince1970: 2_000_000)
    let outage = BackendError.network(.timeout)
    let session = Session(
        accessToken: "a", refreshToken: "r", expiresAt: Date(timeIntervalSince1970: 2_003_600),
        obtainedAt: Date(timeIntervalSince1970: 2_000_000), user: SessionUser(id: "u", email: "e@x.io"))

    @Test func aFailedRefreshIsHandedToCallersUntilItsBackoffEnds() {
        var schedule = RefreshSchedule()
        let delay = schedule.refreshFailed(outage, now: now)
        #expect(delay > 0 && delay <= 1)
        #expect(schedule.pendingFailure(now: now) == outage)
        #expect(schedule.pendingFailure(now: now.addingTimeInterval(1.01)) == nil)
        #expect(schedule.nextDue(for: session, confirmed: true, now: now) == now.addingTimeInterval(delay))
    }

    @Test func failuresDoubleTheWaitAndARetryAfterWins() {
        var schedule = RefreshSchedule()
        for _ in 0..<4 { _ = schedule.refreshFailed(outage, now: now) }
        #expect(schedule.failures == 4)
        let limited = BackendError.server(SupabaseError(status: 429, code: "over_request_rate_limit", message: "slow down", retryAfter: 600))
        #expect(schedule.refreshFailed(limited, now: now) == 600)
    }

    /// A confirmation that did not get through postpones the next one, but a refresh still goes out.
    @Test func aFailedConfirmationPostponesWithoutBlockingARefresh() {
        var schedule = RefreshSchedule()
        let delay = schedule.confirmationFailed(outage, now: now)
        #expect(schedule.pendingFailure(now: now) == nil)
        #expect(schedule.nextDue(for: session, confirmed: false, now: now) == now.addingTimeInterval(delay))
    }

    @Test func successOrAnAnsweringBackendStartsOver() {
        var schedule = RefreshSchedule()
        _ = schedule.refreshFailed(outage, now: now)
        schedule.retryNow()
        #expect(schedule.failures == 0)
        #expect(schedule.nextDue(for: session, confirmed: false, now: now) == now, "an unconfirmed session is asked about at once")
        #expect(schedule.pendingFailure(now: now) == nil)
        _ = schedule.refreshFailed(outage, now: now)
        schedule.succeeded()
        #expect(schedule.nextDue(for: session, confirmed: true, now: now) == session.refreshDueAt)
    }

    @Test func aTinyLifetimeRefreshesAtMostOnceASecond() {
        let brief = Session(
            accessToken: "a", refreshToken: "r", expiresAt: now.addingTimeInterval(0.2), obtainedAt: now,
            user: SessionUser(id: "u", email: "e@x.io"))
        #expect(RefreshSchedule().nextDue(for: brief, confirmed: true, now: now) == now.addingTimeInterval(1))
    }
}
