import Clocks
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Web

/// The gallery's keys without a server: base64url both ways, and what a cookie admits.
@Suite struct GallerySessionsTests {
    let directory = TemporaryDirectory()

    @Test func base64URLUsesTheURLAlphabetWithoutPadding() {
        // 0xfb 0xff 0xbf is "+/+/" in plain base64: every byte that differs between the two alphabets.
        let bytes = Data([0xfb, 0xff, 0xbf])
        #expect(GallerySessions.base64URL(bytes) == "-_-_")
        #expect(GallerySessions.data(base64URL: "-_-_") == bytes)
        #expect(GallerySessions.base64URL(Data([0xfb])) == "-w" && GallerySessions.data(base64URL: "-w") == Data([0xfb]))
        #expect(GallerySessions.data(base64URL: "a*b") == nil)
        // 0xfb is "-w"; "-x" carries the same byte with the unused bits set, and "-w=" a padding: neither
        // is a second spelling of it.
        #expect(GallerySessions.data(base64URL: "-x") == nil && GallerySessions.data(base64URL: "-w=") == nil)
        for length in 0..<40 {
            let random = Data((0..<length).map { _ in UInt8.random(in: 0...255) })
            #expect(GallerySessions.data(base64URL: GallerySessions.base64URL(random)) == random)
        }
    }

    @Test func aCookieIsAdmittedWholeUntilItExpiresOrTheSecretChanges() throws {
        let now = Now()
        let sessions = try GallerySessions(
            secretPath: directory.file("web.secret"), clock: AnyClock(TestClock()), now: { now.date.withLock { $0 } })
        let cookie = try #require(sessions.redeem(sessions.issueToken()))
        #expect(sessions.admits(cookie: cookie))
        // Any one character changed, in the id, the expiry or the signature: refused.
        for index in cookie.indices where cookie[index] != "." {
            var changed = cookie
            changed.replaceSubrange(index...index, with: cookie[index] == "A" ? "B" : "A")
            #expect(!sessions.admits(cookie: changed), "\(changed)")
        }
        now.date.withLock { $0 += GallerySessions.sessionLife + 1 }
        #expect(!sessions.admits(cookie: cookie), "expired")
        now.date.withLock { $0 -= GallerySessions.sessionLife + 1 }
        try sessions.revokeAll()
        #expect(!sessions.admits(cookie: cookie), "signed by the secret before")
    }

    /// Admitted cookies are remembered by their hash, a bounded few: past the bound each is checked
    /// again, and still admitted; a remembered one still expires, and is forgotten with the secret.
    @Test func rememberedCookiesAreBoundedAndEndWithTheirSessions() throws {
        let now = Now()
        let sessions = try GallerySessions(
            secretPath: directory.file("web.secret"), clock: AnyClock(TestClock()), now: { now.date.withLock { $0 } })
        let cookies = (0...GallerySessions.admittedLimit).map { _ in sessions.redeem(sessions.issueToken())! }
        for _ in 0..<2 {
            for cookie in cookies { #expect(sessions.admits(cookie: cookie)) }
        }
        // The restarted daemon (the same secret) admits them too, having remembered none.
        let restarted = try GallerySessions(
            secretPath: directory.file("web.secret"), clock: AnyClock(TestClock()), now: { now.date.withLock { $0 } })
        #expect(restarted.admits(cookie: cookies[0]))
        now.date.withLock { $0 += GallerySessions.sessionLife + 1 }
        #expect(!sessions.admits(cookie: cookies.last!), "remembered, and expired")
        now.date.withLock { $0 -= GallerySessions.sessionLife + 1 }
        try sessions.revokeAll()
        #expect(!sessions.admits(cookie: cookies.last!), "remembered, and signed by the secret before")
        let fresh = try #require(sessions.redeem(sessions.issueToken()))
        #expect(sessions.admits(cookie: fresh) && sessions.admits(cookie: fresh))
    }
}

/// The wall clock the sessions read, moved by the test.
private final class Now: Sendable {
    let date = Mutex(Date())
}
