@testable import Account
import Foundation
import HTTP
import Shared
@testable import Supabase
import Testing

struct SupabaseTimeTests {
    @Test func microsecondsWithOffset() throws {
        let date = try #require(SupabaseTime.parse("2026-11-21T11:29:52.810554+00:00"))
        #expect(abs(date.timeIntervalSince1970 - 1_795_260_592.810554) < 0.000_01)
    }

    @Test func millisecondsAndZ() throws {
        let date = try #require(SupabaseTime.parse("2025-07-11T18:18:45.537Z"))
        #expect(abs(date.timeIntervalSince1970 - 1_752_257_925.537) < 0.000_01)
    }

    @Test func offsetsMoveTheInstant() throws {
        let utc = try #require(SupabaseTime.parse("2025-07-11T18:18:45+00:00"))
        let india = try #require(SupabaseTime.parse("2025-07-11T23:48:45+05:30"))
        let compact = try #require(SupabaseTime.parse("2025-07-11T13:18:45-0500"))
        let spaced = try #require(SupabaseTime.parse("2025-07-11 18:18:45"))
        #expect(utc == india)
        #expect(utc == compact)
        #expect(utc == spaced)
    }

    @Test(arguments: ["", "yesterday", "2025-13-01T00:00:00Z", "2025-07-11T18:18:45.Z", "2025-07-11T18:18:45+0", "2025-07-11T18:18:45Zjunk"])
    func garbageIsNil(_ text: String) {
        #expect(SupabaseTime.parse(text) == nil)
    }
}

struct SupabaseErrorTests {
    private func decode(_ status: Int, _ json: String, headers: [(String, String)] = []) -> SupabaseError {
        SupabaseError(status: status, headers: HTTPHeaders(headers), body: Array(json.utf8))
    }

    @Test func authErrorWithAPIVersion() {
        let error = decode(422, #"{"code":"weak_password","message":"Password should be at least 6 characters.","weak_password":{"reasons":["length"]}}"#)
        #expect(error.code == "weak_password")
        #expect(error.message == "Password should be at least 6 characters.")
        #expect(error.weakPasswordReasons == ["length"])
        #expect(!error.unreadable)
    }

    @Test func authErrorWithoutAPIVersion() {
        let error = decode(422, #"{"code":422,"error_code":"user_already_exists","msg":"User already registered"}"#,
                           headers: [("x-sb-error-code", "user_already_exists")])
        #expect(error.code == "user_already_exists")
        #expect(error.message == "User already registered")
    }

    @Test func oauthShape() {
        let error = decode(400, #"{"error":"invalid_request","error_description":"refresh_token required"}"#)
        #expect(error.code == "invalid_request")
        #expect(error.message == "refresh_token required")
        #expect(!error.endsSession)
    }

    @Test func postgrestUniqueViolation() {
        let error = decode(409, #"{"code":"23505","details":null,"hint":null,"message":"duplicate key value violates unique constraint"}"#)
        #expect(error.isConflict)
        #expect(!error.isTransient)
    }

    @Test func garbageBodyIsUnreadableAndTransient() {
        let error = decode(502, "<html><body>Bad gateway</body></html>", headers: [("Retry-After", "7")])
        #expect(error.unreadable)
        #expect(error.retryAfter == 7)
        #expect(BackendError.server(error).isTransient)
    }

    @Test(arguments: ["refresh_token_not_found", "refresh_token_already_used", "session_not_found", "session_expired"])
    func onlyTheFourCodesEndASession(code: String) {
        #expect(decode(400, #"{"code":"\#(code)","message":"x"}"#).endsSession)
    }

    @Test(arguments: [
        (400, "user_banned"), (400, "invalid_request"), (429, "over_request_rate_limit"), (500, "unexpected_failure"),
        (503, "devstack_fault"), (403, "bad_jwt"),
    ])
    func otherErrorsKeepTheSession(status: Int, code: String) {
        #expect(!decode(status, #"{"code":"\#(code)","message":"x"}"#).endsSession)
    }

    @Test func transientClassification() {
        #expect(BackendError.network(.timeout).isTransient)
        #expect(BackendError.malformed(status: 200, detail: "x").isTransient)
        #expect(BackendError.server(decode(429, "{}")).isTransient)
        #expect(BackendError.server(decode(503, "{}")).isTransient)
        #expect(!BackendError.server(decode(400, #"{"code":"invalid_credentials","message":"x"}"#)).isTransient)
        #expect(decode(401, #"{"code":"PGRST303","message":"JWT expired"}"#).isExpiredToken)
    }
}

struct SessionFromWireTests {
    @Test func sessionFromWireKeepsWhatMatters() throws {
        let json = #"""
            {"access_token":"a.b.c","token_type":"bearer","expires_in":3600,"expires_at":1795264192,"refresh_token":"r1",
             "user":{"id":"u1","email":"ana@example.com","created_at":"2026-11-21T11:29:52.810554+00:00",
                     "last_sign_in_at":"2026-11-21T11:29:52.810554+00:00","user_metadata":{"username":"ana","n":{"x":1}}}}
            """#
        let response = HTTPResponse(status: 200, headers: HTTPHeaders(), body: Array(json.utf8), effectiveURL: "", httpVersion: "1.1")
        let session = try SupabaseAuthAPI.session(from: response, now: Date(timeIntervalSince1970: 1_795_260_592))
        #expect(session.expiresAt == Date(timeIntervalSince1970: 1_795_264_192))
        #expect(session.user == SessionUser(
            id: "u1", email: "ana@example.com", createdAt: SupabaseTime.parse("2026-11-21T11:29:52.810554+00:00"),
            lastSignInAt: SupabaseTime.parse("2026-11-21T11:29:52.810554+00:00"), metadataUsername: "ana"))
    }

    /// A server whose clock is 5 minutes behind sends an `expires_at` already past for a 4-minute token;
    /// the lifetime counts from arrival on this clock instead (the chaos suite saw a refresh storm).
    @Test func expiryCountsTheLifetimeOnThisClock() throws {
        let now = Date(timeIntervalSince1970: 1_795_260_592)
        let json = #"{"access_token":"a.b.c","expires_in":240,"expires_at":1795260532,"refresh_token":"r1","user":{"id":"u1"}}"#
        let response = HTTPResponse(status: 200, headers: HTTPHeaders(), body: Array(json.utf8), effectiveURL: "", httpVersion: "1.1")
        let session = try SupabaseAuthAPI.session(from: response, now: now)
        #expect(session.expiresAt == now.addingTimeInterval(240))
        #expect(!session.isRefreshDue(now: now.addingTimeInterval(60)) && session.isRefreshDue(now: now.addingTimeInterval(120)))
    }

    @Test func sessionWithEmptyTokensIsMalformed() {
        let json = #"{"access_token":"","refresh_token":"","user":{"id":"u1"}}"#
        let response = HTTPResponse(status: 200, headers: HTTPHeaders(), body: Array(json.utf8), effectiveURL: "", httpVersion: "1.1")
        #expect(throws: BackendError.self) { try SupabaseAuthAPI.session(from: response) }
    }
}
