@testable import Account
import Foundation
import HTTP
import Logging
import OAuth
import Shared
import Store
import Supabase
import Testing
import TestSupport

/// Sign-in with a provider in process against devstack's /authorize, whose fake
/// provider consents at once: a scripted browser (an HTTP client that follows the redirects, or stops
/// at the last one to paste it back) plays the person.
@Suite(.devstack, .serialized)
struct ProviderSignInTests {
    let directory = TemporaryDirectory()
    static let browser = try! HTTPClient(configuration: .init(version: "test-browser"))

    private func make(_ devstack: Devstack, timeout: Duration = ProviderSignIn.defaultTimeout) throws -> (ProviderSignIn, SessionManager, SupabaseBackend) {
        let http = try HTTPClient(configuration: .init(version: "test"))
        let backend = SupabaseBackend(http: http, baseURL: devstack.backendURL, anonKey: devstack.anonKey)
        let manager = SessionManager(
            auth: SupabaseAuthAPI(backend: backend), file: SessionFile(directory: directory.path),
            accounts: AccountStore(store: try Store(path: directory.file("s.sqlite"))), logger: Logger(label: "test"), publish: { _ in })
        return (ProviderSignIn(manager: manager, timeout: timeout, logger: Logger(label: "test")), manager, backend)
    }

    /// The browser at `url` (the person named by `hint`), following redirects or stopping at the first.
    static func browse(_ url: String, hint: String? = nil, follow: Bool = true) async throws -> HTTPResponse {
        let address = hint.map { url + "&login_hint=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? url
        return try await browser.send(HTTPRequest(url: address, timeout: .seconds(10), followRedirects: follow))
    }

    /// The state this sign-in sent, read out of its /authorize address's redirect_to.
    static func state(of start: BrowserFlowStart) throws -> String {
        let redirect = try #require(URLComponents(string: start.url)?.queryItems?.first { $0.name == "redirect_to" }?.value)
        return try #require(URLComponents(string: redirect)?.queryItems?.first { $0.name == "state" }?.value)
    }

    /// Whether anything still listens where the browser comes back.
    static func listening(_ start: BrowserFlowStart) async -> Bool {
        (try? await browser.send(HTTPRequest(url: start.redirectUri + "?probe=1", timeout: .seconds(5)))) != nil
    }

    @Test func theBrowserComesBackAndTheSessionBehavesAsAPasswordOne() async throws {
        let devstack = try Devstack.require()
        let (signIn, manager, backend) = try make(devstack)
        let start = try await signIn.start(.google)
        #expect(start.url.hasPrefix(devstack.backendURL + "/auth/v1/authorize?provider=google&redirect_to="))
        #expect(start.url.contains("code_challenge_method=s256") && start.redirectUri.hasPrefix("http://127.0.0.1:"))
        #expect(try await signIn.finish(flow: start.flow, pasted: nil, wait: .milliseconds(100)) == false, "not back yet")

        // A short-lived token, so that the refresh below is due.
        try await devstack.knobs(["access_token_lifetime": 2])
        let email = uniqueEmail("google")
        let page = try await Self.browse(start.url, hint: email)
        #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("You can close this tab"))
        #expect(try await signIn.finish(flow: start.flow, pasted: nil, wait: .seconds(5)))
        try await devstack.knobs(["access_token_lifetime": 3600])
        let status = await manager.status
        #expect(status.state == .signedIn && status.email == email)
        #expect(await Self.listening(start) == false, "the listener closed after its one answer")

        try await Task.sleep(for: .milliseconds(2200))
        let read = try await manager.authorized { token throws(BackendError) in
            try await backend.send("GET", "/rest/v1/profiles", query: [("select", "id")], bearer: token).status
        }
        let refreshes = await manager.refreshesSent
        #expect(read == 200 && refreshes == 1, "refreshed like a password session")
        await #expect(throws: ProviderSignInFailure(.unknownFlow)) { try await signIn.finish(flow: start.flow, pasted: nil, wait: .seconds(1)) }
    }

    /// No browser here: the address the browser ended on, pasted, finishes the sign-in.
    @Test func theAddressTheBrowserEndedOnPastedBackSignsIn() async throws {
        let devstack = try Devstack.require()
        let (signIn, manager, _) = try make(devstack)
        let start = try await signIn.start(.github)
        let email = uniqueEmail("github")
        let redirect = try await Self.browse(start.url, hint: email, follow: false)
        let location = try #require(redirect.headers["Location"])
        #expect(redirect.status == 302 && location.hasPrefix(start.redirectUri))
        #expect(try await signIn.finish(flow: start.flow, pasted: "  " + location + "\n", wait: .seconds(1)))
        #expect(await manager.status.email == email)
        #expect(await Self.listening(start) == false)
    }

    @Test func badCallbacksAreRefusedClearlyAndCloseTheListener() async throws {
        let devstack = try Devstack.require()
        let (signIn, manager, _) = try make(devstack)

        // Another path (a favicon): 404, and the sign-in still waits.
        var start = try await signIn.start(.google)
        let favicon = try await Self.browser.send(HTTPRequest(url: start.redirectUri.replacingOccurrences(of: "/callback", with: "/favicon.ico")))
        #expect(favicon.status == 404)
        #expect(try await signIn.finish(flow: start.flow, pasted: nil, wait: .milliseconds(200)) == false)
        // Another sign-in's state: refused, nothing sent, the listener closed.
        let forged = try await Self.browser.send(HTTPRequest(url: start.redirectUri + "?state=someone-else&code=stolen"))
        #expect(forged.status == 400 && String(decoding: forged.body, as: UTF8.self).contains("Not this sign-in"))
        await #expect(throws: ProviderSignInFailure(.wrongState)) { try await signIn.finish(flow: start.flow, pasted: nil, wait: .seconds(5)) }
        #expect(await Self.listening(start) == false, "a second callback finds nothing listening")

        // The right state but no code.
        start = try await signIn.start(.google)
        _ = try await Self.browser.send(HTTPRequest(url: start.redirectUri + "?state=" + Self.state(of: start)))
        await #expect(throws: ProviderSignInFailure(.noCode)) { try await signIn.finish(flow: start.flow, pasted: nil, wait: .seconds(5)) }

        // The provider refuses.
        try await devstack.knobs(["provider_denies": 1])
        start = try await signIn.start(.github)
        let refused = try await Self.browse(start.url)
        #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("refused"))
        await #expect(throws: ProviderSignInFailure(.refused(error: "access_denied", description: "The person refused to sign in with github"))) {
            try await signIn.finish(flow: start.flow, pasted: nil, wait: .seconds(5))
        }
        try await devstack.knobs(["provider_denies": 0])

        // A code past its lifetime: the account server's refusal, in its words.
        try await devstack.knobs(["pkce_code_lifetime": 0])
        start = try await signIn.start(.google)
        _ = try await Self.browse(start.url, hint: uniqueEmail("late"))
        await #expect {
            try await signIn.finish(flow: start.flow, pasted: nil, wait: .seconds(5))
        } throws: { error in
            (error as? AccountFailure).flatMap { if case .backend(.server(let server)) = $0 { server.code } else { nil } } == "flow_state_expired"
        }
        try await devstack.knobs(["pkce_code_lifetime": 300])

        // A pasted address that is not a callback; a flow nobody began.
        start = try await signIn.start(.google)
        await #expect(throws: ProviderSignInFailure(.notACallback(url: "https://example.com/"))) {
            try await signIn.finish(flow: start.flow, pasted: "https://example.com/", wait: .seconds(1))
        }
        #expect(await Self.listening(start) == false)
        await #expect(throws: ProviderSignInFailure(.unknownFlow)) { try await signIn.finish(flow: "nobody", pasted: nil, wait: .seconds(1)) }
        #expect(await manager.status.state == .signedOut, "nothing half-saved: no session from any of them")
    }

    @Test func nobodyComingBackGivesUpAfterTheTimeout() async throws {
        let devstack = try Devstack.require()
        let (signIn, _, _) = try make(devstack, timeout: .seconds(1))
        let start = try await signIn.start(.google)
        await #expect(throws: ProviderSignInFailure(.timedOut(minutes: 0))) {
            try await signIn.finish(flow: start.flow, pasted: nil, wait: .seconds(10))
        }
        #expect(await Self.listening(start) == false)
    }
}
