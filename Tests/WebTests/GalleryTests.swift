import Clocks
import Control
import Daemon
import DaemonTestSupport
import Foundation
import NIOCore
import NIOWebSocket
import GRDB
import Shared
import SplashClient
import Store
import Testing
import TestSupport

/// The web gallery over real sockets: a daemon's graph in this process with its gallery listening on
/// loopback, asked as a browser would and as a hostile page or another local user would.
@Suite struct GalleryTests {
    let daemon: InProcessDaemon
    let port: Int
    var http: RawHTTP { RawHTTP(port: port) }
    var host: String { "127.0.0.1:\(port)" }
    var origin: String { "http://127.0.0.1:\(port)" }

    init() async throws {
        daemon = try await InProcessDaemon(photos: ["abc"])
        port = try await daemon.startGallery()
    }

    /// A token from `web.open`, asked as splashctl asks: over the control connection.
    func token() async throws -> String {
        let opened = try await daemon.client { try await $0.send(WebOpenRequest()) }
        let prefix = "http://127.0.0.1:\(port)/?token="
        #expect(opened.url.hasPrefix(prefix), "\(opened.url)")
        return String(opened.url.dropFirst(prefix.count))
    }

    /// A browser's session: the `name=value` its Cookie header sends.
    func session() async throws -> String {
        let token = try await token()
        let answer = try await http.send("/?token=" + token, headers: ["Host": host])
        let setCookie = try #require(answer.header("Set-Cookie"))
        return String(setCookie.split(separator: ";")[0])
    }

    @Test func aTokenIsTradedOnceForACookieThatOpensThePage() async throws {
        let token = try await token()
        let traded = try await http.send("/?token=\(token)", headers: ["Host": host])
        #expect(traded.status == 303 && traded.header("Location") == "/")
        let cookie = try #require(traded.header("Set-Cookie"))
        #expect(cookie.hasPrefix("splashd-gallery-\(port)="), "\(cookie)")
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] { #expect(cookie.contains(attribute), "\(attribute) in \(cookie)") }

        let page = try await http.send("/", headers: ["Host": host, "Cookie": String(cookie.split(separator: ";")[0])])
        #expect(page.status == 200)
        #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(String(decoding: page.body, as: UTF8.self).contains("<title>splashd</title>"))
        #expect(page.header("Content-Security-Policy")?.hasPrefix("default-src 'self'") == true)
        #expect(page.header("X-Frame-Options") == "DENY" && page.header("X-Content-Type-Options") == "nosniff")
        #expect(page.header("Access-Control-Allow-Origin") == nil, "no CORS at all")

        let again = try await http.send("/?token=\(token)", headers: ["Host": host])
        #expect(again.status == 401 && again.header("Set-Cookie") == nil, "a token opens the gallery once")
        let letIn = try await http.send("/?token=\(token)", headers: ["Host": host, "Cookie": String(cookie.split(separator: ";")[0])])
        #expect(letIn.status == 303 && letIn.header("Location") == "/" && letIn.header("Set-Cookie") == nil, "an old link, a browser let in")
    }

    @Test func anExpiredTokenOpensNothing() async throws {
        let token = try await token()
        await daemon.clock.advance(by: .seconds(121))
        let late = try await http.send("/?token=\(token)", headers: ["Host": host])
        #expect(late.status == 401 && late.header("Set-Cookie") == nil)
        #expect(try await http.send("/?token=not-a-token", headers: ["Host": host]).status == 401)
    }

    /// DNS rebinding: a page of another name that resolves to 127.0.0.1 sends its own name as Host.
    @Test func theHostMustBeLoopbackWithTheGallerysPort() async throws {
        let cookie = try await session()
        for good in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"] {
            #expect(try await http.send("/", headers: ["Host": good, "Cookie": cookie]).status == 200, "\(good)")
        }
        for bad: String? in ["evil.example:\(port)", "127.0.0.1:1", "127.0.0.1", "localhost.evil.example:\(port)", nil] {
            let refused = try await http.send("/", headers: ["Host": bad, "Cookie": cookie])
            #expect(refused.status == 403, "\(bad ?? "no Host")")
            #expect(refused.header("Content-Security-Policy") != nil, "a refusal is guarded too")
        }
    }

    /// Any user of the machine can reach the port; only the cookie lets anything through.
    @Test func withoutItsCookieNothingIsAnswered() async throws {
        for path in ["/", "/app.js", "/index.html", "/images/unsplash:abc/thumb", "/rpc", "/nothing"] {
            #expect(try await http.send(path, headers: ["Host": host]).status == 401, "\(path)")
        }
        let cookie = try await session()
        let value = cookie.split(separator: "=", maxSplits: 1)[1]
        #expect(try await http.send("/", headers: ["Host": host, "Cookie": cookie + "x"]).status == 401, "a cookie changed by a byte")
        // A session of another daemon (another secret), sent as if it were this one's.
        let other = try await InProcessDaemon(photos: [])
        let otherPort = try await other.startGallery()
        let foreign = try await GalleryTests.session(of: other, port: otherPort)
        let foreignValue = foreign.split(separator: "=", maxSplits: 1)[1]
        #expect(try await http.send("/", headers: ["Host": host, "Cookie": "splashd-gallery-\(port)=\(foreignValue)"]).status == 401)
        #expect(try await http.send("/", headers: ["Host": host, "Cookie": "splashd-gallery-\(otherPort)=\(value)"]).status == 401)
    }

    @Test func aChangeIsAcceptedOnlyFromTheGallerysOwnPage() async throws {
        let cookie = try await session()
        let crossSite = try await http.send("/", method: "POST", headers: ["Host": host, "Cookie": cookie, "Sec-Fetch-Site": "cross-site"])
        #expect(crossSite.status == 403)
        let foreignOrigin = try await http.send("/", method: "POST", headers: ["Host": host, "Cookie": cookie, "Origin": "http://evil.example"])
        #expect(foreignOrigin.status == 403)
        let neither = try await http.send("/", method: "POST", headers: ["Host": host, "Cookie": cookie])
        #expect(neither.status == 403)
        let own = try await http.send("/", method: "POST", headers: ["Host": host, "Cookie": cookie, "Sec-Fetch-Site": "same-origin"])
        #expect(own.status != 403 && own.status != 401, "past the guard: \(own.status)")
    }

    @Test func imageIdsAreLookedUpInTheStoreNeverTakenAsPaths() async throws {
        let cookie = try await session()
        for path in [
            "/images/..%2F..%2Fetc%2Fpasswd/original", "/images/%2Fetc%2Fpasswd/original", "/images/unsplash:..%2F..%2Fx/thumb",
            "/images/unsplash:abc%00/thumb", "/images/unsplash:abc/huge", "/images/abc/thumb",
            "/images/unsplash:abc/edit/..%2F..%2Fetc%2Fpasswd", "/images/unsplash:abc/edit/a%00b", "/images/unsplash:abc/edit/nope",
        ] {
            let refused = try await http.send(path, headers: ["Host": host, "Cookie": cookie])
            #expect(refused.status == 400 || refused.status == 404, "\(path): \(refused.status)")
            #expect(refused.header("Content-Type")?.hasPrefix("image/") != true)
        }
        #expect(try await http.send("/images/unsplash:nope/original", headers: ["Host": host, "Cookie": cookie]).status == 404)
    }

    @Test func aPictureIsAnsweredWithItsHashItsTypeAndRanges() async throws {
        let cookie = try await session()
        let bytes = Data((0..<5_000).map { UInt8($0 % 251) })
        let relative = "library/unsplash/abc.regular.jpg"
        try FileManager.default.createDirectory(atPath: daemon.dataDirectory + "/library/unsplash", withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: daemon.dataDirectory + "/" + relative))
        let hash = "5d1f0e3a"
        try daemon.store.write { db in
            try PhotoFileStore.record(db, .init(
                photoId: "unsplash:abc", variant: "regular", path: relative, inLibrary: true, bytes: Int64(bytes.count), checksum: hash,
                createdAt: Date(), lastAccessAt: Date()))
        }
        let whole = try await http.send("/images/unsplash:abc/original", headers: ["Host": host, "Cookie": cookie])
        #expect(whole.status == 200 && whole.body == bytes)
        let escaped = try await http.send("/images/unsplash%3Aabc/original", headers: ["Host": host, "Cookie": cookie])
        #expect(escaped.status == 200 && escaped.body == bytes, "the id as a page's encodeURIComponent writes it")
        #expect(whole.header("ETag") == "\"\(hash)\"" && whole.header("Content-Type") == "image/jpeg")
        #expect(whole.header("Cache-Control")?.contains("immutable") == true)
        let unchanged = try await http.send("/images/unsplash:abc/original", headers: ["Host": host, "Cookie": cookie, "If-None-Match": "\"\(hash)\""])
        #expect(unchanged.status == 304 && unchanged.body.isEmpty)
        let head = try await http.send("/images/unsplash:abc/original", method: "HEAD", headers: ["Host": host, "Cookie": cookie])
        #expect(head.status == 200 && head.body.isEmpty, "\(head.status), \(head.body.count) bytes")
        #expect(head.header("Content-Length") == "5000" && head.header("ETag") == "\"\(hash)\"" && head.header("Content-Type") == "image/jpeg")
        let part = try await http.send("/images/unsplash:abc/original", headers: ["Host": host, "Cookie": cookie, "Range": "bytes=10-19"])
        #expect(part.status == 206 && part.body == bytes[10...19] && part.header("Content-Range") == "bytes 10-19/5000")
        // No thumbnail here and none to fetch (the photo has no addresses, as one imported from a
        // folder): the grid gets the file that is here.
        let thumb = try await http.send("/images/unsplash:abc/thumb", headers: ["Host": host, "Cookie": cookie])
        #expect(thumb.status == 200 && thumb.body == bytes, "\(thumb.status)")
        let tail = try await http.send("/images/unsplash:abc/screen", headers: ["Host": host, "Cookie": cookie, "Range": "bytes=-100"])
        #expect(tail.status == 206 && tail.body == bytes.suffix(100))
        let beyond = try await http.send("/images/unsplash:abc/original", headers: ["Host": host, "Cookie": cookie, "Range": "bytes=5000-"])
        #expect(beyond.status == 416 && beyond.header("Content-Range") == "bytes */5000")
    }

    /// A photo the store holds with no picture here and none to be had (its source has no address for
    /// one): 404 with the daemon's words, not "try again in 30 s" for good.
    @Test func aPictureThatCannotBeHadIsNotFoundInTheDaemonsWords() async throws {
        let cookie = try await session()
        let answer = try await http.send("/images/unsplash:abc/thumb", headers: ["Host": host, "Cookie": cookie])
        let words = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == 404 && answer.header("Retry-After") == nil, "\(answer.status) \(words)")
        #expect(words.contains("unsplash:abc") && answer.header("Content-Type")?.hasPrefix("text/plain") == true, "\(words)")
        #expect(answer.header("Content-Security-Policy") != nil, "a refusal is secured as every answer")
    }

    /// A file too large to read whole for one answer (an original) is streamed: whole, and in ranges
    /// that cross the chunks it is read in.
    @Test func aLargePictureIsStreamedWholeAndInRanges() async throws {
        let cookie = try await session()
        let bytes = Data((0..<(3 << 20) / 2).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        let relative = "library/unsplash/abc.full.jpg"
        try FileManager.default.createDirectory(atPath: daemon.dataDirectory + "/library/unsplash", withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: daemon.dataDirectory + "/" + relative))
        try daemon.store.write { db in
            try PhotoFileStore.record(db, .init(
                photoId: "unsplash:abc", variant: "full", path: relative, inLibrary: true, bytes: Int64(bytes.count), checksum: "f00d",
                createdAt: Date(), lastAccessAt: Date()))
        }
        let whole = try await http.send("/images/unsplash:abc/original", headers: ["Host": host, "Cookie": cookie])
        #expect(whole.status == 200 && whole.header("Content-Length") == String(bytes.count))
        #expect(whole.body == bytes)
        let head = try await http.send("/images/unsplash:abc/original", method: "HEAD", headers: ["Host": host, "Cookie": cookie])
        #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(bytes.count))
        let across = try await http.send("/images/unsplash:abc/original", headers: ["Host": host, "Cookie": cookie, "Range": "bytes=131000-1200000"])
        #expect(across.status == 206 && across.body == bytes[131_000...1_200_000])
        #expect(across.header("Content-Range") == "bytes 131000-1200000/\(bytes.count)")
    }

    /// However its bytes are read — on the connection's event loop (small, in the page cache), or on
    /// the thread pool (larger than that, or not in the page cache) — a picture is answered whole.
    @Test(arguments: [(5_000, false), (5_000, true), (600_000, false)])
    func aPictureIsAnsweredWholeWhereverItsBytesAre(size: Int, evicted: Bool) async throws {
        let cookie = try await session()
        let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) })
        let relative = "library/unsplash/abc.regular.jpg"
        let path = daemon.dataDirectory + "/" + relative
        try FileManager.default.createDirectory(atPath: daemon.dataDirectory + "/library/unsplash", withIntermediateDirectories: true)
        try bytes.write(to: URL(fileURLWithPath: path))
        if evicted {
            // Written back, then dropped from the page cache: the event loop's read (RWF_NOWAIT) finds
            // nothing there and the pool reads it from the disk.
            let fd = open(path, O_RDONLY)
            #expect(fd >= 0 && fsync(fd) == 0 && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0)
            close(fd)
        }
        try daemon.store.write { db in
            try PhotoFileStore.record(db, .init(
                photoId: "unsplash:abc", variant: "regular", path: relative, inLibrary: true, bytes: Int64(size), checksum: "c0ffee",
                createdAt: Date(), lastAccessAt: Date()))
        }
        let answer = try await http.send("/images/unsplash:abc/thumb", headers: ["Host": host, "Cookie": cookie])
        #expect(answer.status == 200 && answer.header("Content-Length") == String(size))
        #expect(answer.body == bytes)
    }

    @Test func theWebSocketSpeaksTheControlProtocolToTheGallerysOwnPageOnly() async throws {
        let cookie = try await session()
        var texts: [String] = []
        try await BrowserSocket.open(port: port, headers: [("Host", host), ("Origin", origin), ("Cookie", cookie)]) { socket in
            try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#)
            texts.append(try await socket.next() ?? "")
            try await socket.send(#"{"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{"types":["daemon.reloaded"]}}"#)
            texts.append(try await socket.next() ?? "")
            daemon.state.bus.publish(.daemonReloaded)
            texts.append(try await socket.next() ?? "")
            try await socket.send(#"{"jsonrpc":"2.0","id":3,"method":"web.open"}"#)
            texts.append(try await socket.next() ?? "")
        }
        try #require(texts.count == 4, "\(texts)")
        #expect(texts[0].contains(#""pong":true"#), "\(texts[0])")
        #expect(texts[1].contains(#""subscription""#), "\(texts[1])")
        #expect(texts[2].contains(#""method":"event""#) && texts[2].contains("daemon.reloaded"), "\(texts[2])")
        #expect(texts[3].contains("permission_denied"), "a tab cannot open itself another session: \(texts[3])")

        let refusals: [(String, [(String, String)])] = [
            ("a foreign Origin", [("Host", host), ("Origin", "http://evil.example"), ("Cookie", cookie)]),
            ("no Origin", [("Host", host), ("Cookie", cookie)]),
            ("two Origins", [("Host", host), ("Origin", "ws://127.0.0.1"), ("Origin", origin), ("Cookie", cookie)]),
            ("no cookie", [("Host", host), ("Origin", origin)]),
            ("another port's origin", [("Host", host), ("Origin", "http://127.0.0.1:1"), ("Cookie", cookie)]),
            ("a foreign Host", [("Host", "evil.example:\(port)"), ("Origin", "http://evil.example:\(port)"), ("Cookie", cookie)]),
        ]
        for (why, headers) in refusals {
            await #expect(throws: BrowserSocket.Refused.self, "\(why)") {
                try await BrowserSocket.open(port: port, headers: headers) { _ in }
            }
        }
    }

    /// The page's editor cancels a preview it no longer wants: over the WebSocket the cancel gets no
    /// answer, the preview exactly one (its result, or `cancelled` if it was caught rendering), and
    /// the request after it is answered in its place.
    @Test func aCancelOverTheWebSocketKeepsOneAnswerPerRequestInOrder() async throws {
        let cookie = try await session()
        var texts: [String] = []
        try await BrowserSocket.open(port: port, headers: [("Host", host), ("Origin", origin), ("Cookie", cookie)]) { socket in
            try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"edits.preview","params":{"id":"unsplash:abc","filters":[{"filter":"sepia"}]}}"#)
            try await socket.send(#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#)
            try await socket.send(#"{"jsonrpc":"2.0","id":2,"method":"daemon.ping"}"#)
            texts.append(try await socket.next() ?? "")
            texts.append(try await socket.next() ?? "")
        }
        try #require(texts.count == 2, "\(texts)")
        #expect(texts[0].contains(#""id":1"#), "\(texts[0])")
        #expect(texts[1].contains(#""id":2"#) && texts[1].contains(#""pong":true"#), "\(texts[1])")
    }

    @Test func revokingEndsEverySessionAndEveryOpenTab() async throws {
        let cookie = try await session()
        let unused = try await token()
        let closed = try await BrowserSocket.open(port: port, headers: [("Host", host), ("Origin", origin), ("Cookie", cookie)]) { socket in
            try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#)
            _ = try await socket.next()
            _ = try await daemon.client { try await $0.send(WebRevokeRequest()) }
            while try await socket.next() != nil {}
        }
        #expect(closed == 4001, "\(String(describing: closed))")
        #expect(try await http.send("/", headers: ["Host": host, "Cookie": cookie]).status == 401)
        #expect(try await http.send("/?token=\(unused)", headers: ["Host": host]).status == 401)
        #expect(try await session().isEmpty == false, "splashctl open lets a browser in again")
    }

    /// A message longer than the control socket's longest line closes that connection (1009, too big)
    /// and nothing else: the gallery answers the next one.
    @Test func aMessageLongerThanALineClosesItsConnectionAndNothingElse() async throws {
        let cookie = try await session()
        let headers = [("Host", host), ("Origin", origin), ("Cookie", cookie)]
        let closed = try await BrowserSocket.open(port: port, headers: headers) { socket in
            try await socket.send(String(repeating: "x", count: daemon.config.maximumLineBytes + 1))
            while try await socket.next() != nil {}
        }
        #expect(closed == 1009, "\(String(describing: closed))")
        var pong = ""
        try await BrowserSocket.open(port: port, headers: headers) { socket in
            try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#)
            pong = try await socket.next() ?? ""
        }
        #expect(pong.contains(#""pong":true"#))
    }

    /// A head longer than the decoder reads (a 10 MB query string) is answered 431 and its connection
    /// ended; the next request is answered as ever. (It was held open without a word.)
    @Test func aHeadTooLongToReadIsAnsweredAndItsConnectionEnded() async throws {
        let cookie = try await session()
        let query = String(repeating: "q", count: 10 << 20)
        let answer = try await http.send("/?q=" + query, headers: ["Host": host, "Cookie": cookie])
        #expect(answer.status == 431, "\(answer.status)")
        let garbage = try await http.sendRaw(Data("\u{1}\u{2} nonsense\r\n\r\n".utf8))
        #expect(String(decoding: garbage, as: UTF8.self).hasPrefix("HTTP/1.1 400"), "\(String(decoding: garbage, as: UTF8.self))")
        #expect(try await http.send("/", headers: ["Host": host, "Cookie": cookie]).status == 200)
    }

    /// An HTTP/1.0 client (ab, old scripts) reads until the connection closes: it is answered and the
    /// connection closed after the answer, keep-alive asked for or not. (Hummingbird kept it open, and
    /// the client waited for good.)
    @Test func anHTTP10RequestIsAnsweredAndItsConnectionClosed() async throws {
        let cookie = try await session()
        for keepAlive in ["", "Connection: Keep-Alive\r\n"] {
            let request = "GET / HTTP/1.0\r\nHost: \(host)\r\nCookie: \(cookie)\r\n\(keepAlive)\r\n"
            let answer = try RawHTTP.parse(try await http.sendRaw(Data(request.utf8)))
            #expect(answer.status == 200, "\(keepAlive): \(answer.status)")
        }
    }

    /// A connection that never finishes its first head (or sends nothing) is ended after the idle
    /// time: another local user cannot hold the gallery's connections open for good.
    @Test func aConnectionThatNeverFinishesItsHeadIsEnded() async throws {
        let daemon = try await InProcessDaemon(photos: []) { $0.webIdleSeconds = 1 }
        let port = try await daemon.startGallery()
        for partial in ["", "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"] {
            let answer = try await RawHTTP(port: port).sendRaw(Data(partial.utf8))
            #expect(answer.isEmpty, "\(String(decoding: answer, as: UTF8.self))")
        }
    }

    /// A tab that floods requests and never reads its answers: the gallery stops reading from it once
    /// the answers back up (the tab's writes stop being taken), instead of buffering without end, and
    /// other tabs are served meanwhile.
    @Test func aTabThatFloodsAndNeverReadsIsThrottledNotBuffered() async throws {
        let cookie = try await session()
        let headers = [("Host", host), ("Origin", origin), ("Cookie", cookie)]
        let tab = try await RawWebSocket.opened(port: port, headers: headers)
        let batch = RawWebSocket.frames(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#, count: 1000)
        var sent = 0
        var blockedAt: Int?
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, sent < 200 << 20 {
            let taken = tab.sendSome(batch)
            if taken > 0 {
                sent += taken
                continue
            }
            guard taken == 0 else { break }
            // Full: a moment for the gallery; if it still takes nothing, it has stopped reading from us.
            try await Task.sleep(for: .milliseconds(200))
            let again = tab.sendSome(batch)
            if again == 0 {
                blockedAt = sent
                break
            }
            sent += max(0, again)
        }
        var pong = ""
        try await BrowserSocket.open(port: port, headers: headers) { other in
            try await other.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#)
            pong = try await other.next() ?? ""
        }
        #expect(pong.contains(#""pong":true"#), "another tab is served while this one is stuck")
        let blocked = try #require(blockedAt, "the gallery kept reading \(sent) bytes from a tab that never reads")
        #expect(blocked < 50 << 20)
    }

    static func session(of daemon: InProcessDaemon, port: Int) async throws -> String {
        let opened = try await daemon.client { try await $0.send(WebOpenRequest()) }
        let token = String(opened.url.split(separator: "=").last!)
        let answer = try await RawHTTP(port: port).send("/?token=" + token, headers: ["Host": "127.0.0.1:\(port)"])
        return String(try #require(answer.header("Set-Cookie")).split(separator: ";")[0])
    }
}
