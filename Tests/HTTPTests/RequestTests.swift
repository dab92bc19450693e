import Foundation
import Testing
@testable import HTTP

/// Requests against the local test server: methods, headers, bodies, statuses, encodings, redirects.
@Suite struct RequestTests {
    private func json(_ response: HTTPResponse) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }

    @Test func getSendsHeadersAndUserAgent() async throws {
        try await withServer { server in
            let client = try makeClient()
            let response = try await client.send(HTTPRequest(url: server.url("/echo?x=1"), headers: [("X-Test", "yes")]))
            #expect(response.status == 200)
            #expect(response.httpVersion == "1.1")
            #expect(response.effectiveURL == server.url("/echo?x=1"))
            #expect(response.headers["CONTENT-TYPE"] == "application/json")
            #expect(response.headers.values(for: "x-multi") == ["a", "b"])
            let echoed = try json(response)
            let headers = echoed["headers"] as? [String: String] ?? [:]
            #expect(echoed["method"] as? String == "GET")
            #expect(echoed["path"] as? String == "/echo?x=1")
            #expect(headers["x-test"] == "yes")
            #expect(headers["user-agent"] == "splashd/1.2.3-test")
            #expect(headers["expect"] == nil)
        }
    }

    @Test func postPutDeleteCarryMethodAndBody() async throws {
        try await withServer { server in
            let client = try makeClient()
            let payload = Array(#"{"hello":"world"}"#.utf8)
            for method in ["POST", "PUT", "PATCH"] {
                let response = try await client.send(HTTPRequest(
                    method: method, url: server.url("/echo"), headers: [("Content-Type", "application/json")], body: payload))
                let echoed = try json(response)
                #expect(echoed["method"] as? String == method)
                #expect(echoed["body"] as? String == #"{"hello":"world"}"#)
                #expect((echoed["headers"] as? [String: String])?["content-type"] == "application/json")
            }
            let untyped = try json(try await client.send(HTTPRequest(method: "POST", url: server.url("/echo"), body: payload)))
            #expect((untyped["headers"] as? [String: String])?["content-type"] == nil)
            let deleted = try json(try await client.send(HTTPRequest(method: "DELETE", url: server.url("/echo"))))
            #expect(deleted["method"] as? String == "DELETE")
            let head = try await client.send(HTTPRequest(method: "HEAD", url: server.url("/echo")))
            #expect(head.status == 200 && head.body.isEmpty)
        }
    }

    @Test func largePostBodyIsSentWhole() async throws {
        try await withServer { server in
            let client = try makeClient()
            let payload = [UInt8](repeating: UInt8(ascii: "z"), count: 3 << 20)
            let echoed = try json(try await client.send(HTTPRequest(method: "POST", url: server.url("/echo"), body: payload)))
            #expect((echoed["body"] as? String)?.count == payload.count)
        }
    }

    /// The body goes through the read callback, so a retry libcurl makes on its own (a reused connection
    /// that died before answering) rewinds it through the seek callback and sends it whole again.
    @Test func aBodyIsSentAgainWhenLibcurlRetriesOnAFreshConnection() async throws {
        try await withServer { server in
            let client = try makeClient()
            _ = try await client.send(HTTPRequest(url: server.url("/echo")))
            let payload = Array(String(repeating: "0123456789abcdef", count: 20_000).utf8)
            let echoed = try json(try await client.send(HTTPRequest(method: "POST", url: server.url("/dies-once-reused"), body: payload)))
            #expect((echoed["body"] as? String).map { Array($0.utf8) } == payload)
            let stats = try await server.stats(using: client)
            #expect(stats["died"] as? Int == payload.count, "the first try, on the reused connection, was read whole and not answered")
        }
    }

    /// A file's contents go as the body, read as they are sent, and again from its start when libcurl
    /// retries on a fresh connection.
    @Test func aFileIsSentAsItsBodyAndAgainOnAFreshConnection() async throws {
        try await withServer { server in
            let client = try makeClient()
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let contents = Array(String(repeating: "file-body-0123456789", count: 16_000).utf8)
            let path = directory + "/body.txt"
            try Data(contents).write(to: URL(fileURLWithPath: path))
            _ = try await client.send(HTTPRequest(url: server.url("/echo")))
            let echoed = try json(try await client.send(HTTPRequest(method: "PUT", url: server.url("/dies-once-reused"), uploading: path)))
            #expect((echoed["body"] as? String).map { Array($0.utf8) } == contents)
            #expect(echoed["method"] as? String == "PUT")
            #expect(try await server.stats(using: client)["died"] as? Int == contents.count)
        }
    }

    @Test func aFileThatCannotBeOpenedIsALocalErrorBeforeAnyIO() async throws {
        try await withServer { server in
            let client = try makeClient()
            await #expect(throws: HTTPError.file(errno: ENOENT, path: "/nonexistent/body")) {
                try await client.send(HTTPRequest(method: "POST", url: server.url("/echo"), uploading: "/nonexistent/body"))
            }
            #expect(try await server.stats(using: client)["requests"] as? Int == 1, "only the stats request reached the server")
        }
    }

    /// Two bodies sent at once under an upload rate both arrive whole, and together take at least the
    /// time the rate allows. Only that bound is checked: a slow machine makes it longer, never shorter.
    @Test func uploadsTogetherKeepUnderTheUploadRate() async throws {
        try await withServer { server in
            let rate = 256 << 10
            let limits = BandwidthLimits()
            limits.set(.init(upload: Int64(rate)))
            let client = try makeClient { $0.bandwidth = limits }
            let payload = Array(String(repeating: "upload-rate-test", count: 300 << 6).utf8)
            let started = ContinuousClock.now
            async let first = client.send(HTTPRequest(method: "POST", url: server.url("/echo"), body: payload))
            async let second = client.send(HTTPRequest(method: "PUT", url: server.url("/echo"), body: payload))
            let answers = try await [first, second]
            let elapsed = ContinuousClock.now - started
            for answer in answers {
                #expect((try json(answer)["body"] as? String).map { Array($0.utf8) } == payload)
            }
            // What may go before the rate holds: the bucket's tenth of a second, and one chunk of libcurl's
            // (64 KiB) taken on credit by each transfer.
            let credit = rate / 10 + 2 * (64 << 10)
            let atLeast = Double(2 * payload.count - credit) / Double(rate)
            #expect(elapsed >= .milliseconds(Int(atLeast * 1000)), "\(2 * payload.count) bytes in \(elapsed) under \(rate) B/s")
        }
    }

    /// Under a rate limit a request's timeout does not count the time the rate held it back: a body
    /// that takes longer than the timeout to send at the rate still arrives, where libcurl's own timer
    /// would end it at every try.
    @Test func aBodyHeldBackByTheRateOutlivesItsTimeout() async throws {
        try await withServer { server in
            let limits = BandwidthLimits()
            limits.set(.init(upload: 64 << 10))
            let client = try makeClient { $0.bandwidth = limits }
            let payload = Array(String(repeating: "slow-upload-body", count: 16 << 10).utf8)
            let started = ContinuousClock.now
            let answer = try await client.send(HTTPRequest(method: "POST", url: server.url("/echo"), body: payload, timeout: .seconds(2)))
            #expect((try json(answer)["body"] as? String).map { Array($0.utf8) } == payload)
            #expect(ContinuousClock.now - started > .seconds(2), "256 KiB at 64 KiB/s takes longer than the timeout")
        }
    }

    /// ... and a server that never answers still ends the request at its timeout.
    @Test func aRateLimitedRequestStillEndsAtItsTimeout() async throws {
        try await withServer { server in
            let limits = BandwidthLimits()
            limits.set(.init(upload: 64 << 10))
            let client = try makeClient { $0.bandwidth = limits }
            await #expect(throws: HTTPError.timeout) {
                try await client.send(HTTPRequest(method: "POST", url: server.url("/hang"), body: Array("x".utf8), timeout: .seconds(1)))
            }
        }
    }

    @Test func nonSuccessStatusIsReturnedAndThrowsOnlyWhenAsked() async throws {
        try await withServer { server in
            let client = try makeClient()
            let response = try await client.send(HTTPRequest(url: server.url("/status?code=404")))
            #expect(response.status == 404)
            #expect(response.body == Array("status body".utf8))
            #expect(throws: HTTPError.http(status: 404, headers: response.headers, body: response.body)) {
                try response.requireSuccess()
            }
        }
    }

    @Test func gzipIsDecoded() async throws {
        try await withServer { server in
            let client = try makeClient()
            let response = try await client.send(HTTPRequest(url: server.url("/gzip")))
            #expect(response.headers["content-encoding"] == "gzip")
            #expect(response.body == Array(String(repeating: "hello gzip ", count: 1000).utf8))
        }
    }

    @Test func bodyOverTheLimitIsTooLarge() async throws {
        try await withServer { server in
            let client = try makeClient { $0.maxResponseBytes = 1 << 20 }
            await #expect(throws: HTTPError.tooLarge(limit: 1 << 20)) {
                try await client.send(HTTPRequest(url: server.url("/big?n=\(8 << 20)")))
            }
            let fits = try await client.send(HTTPRequest(url: server.url("/big?n=\(1 << 20)")))
            #expect(fits.body.count == 1 << 20)
        }
    }

    @Test func gzipBombIsTooLargeOnDecodedBytes() async throws {
        try await withServer { server in
            let client = try makeClient { $0.maxResponseBytes = 1 << 20 }
            await #expect(throws: HTTPError.tooLarge(limit: 1 << 20)) {
                try await client.send(HTTPRequest(url: server.url("/bomb")))
            }
        }
    }

    @Test func redirectsAreFollowedOnlyWhenAsked() async throws {
        try await withServer { server in
            let client = try makeClient()
            let unfollowed = try await client.send(HTTPRequest(url: server.url("/redirect?to=/echo")))
            #expect(unfollowed.status == 302)
            #expect(unfollowed.headers["location"] == "/echo")
            let followed = try await client.send(HTTPRequest(
                url: server.url("/redirect?to=/echo"), headers: [("Authorization", "Bearer secret")], followRedirects: true))
            #expect(followed.status == 200)
            #expect(followed.effectiveURL == server.url("/echo"))
            // Same host: the credentials go along.
            #expect((try json(followed)["headers"] as? [String: String])?["authorization"] == "Bearer secret")
            // 303 after POST turns into a GET without body.
            let seeOther = try await client.send(HTTPRequest(
                method: "POST", url: server.url("/redirect?to=/echo&code=303"), body: Array("x".utf8), followRedirects: true))
            #expect(try json(seeOther)["method"] as? String == "GET")
        }
    }

    @Test func credentialsDoNotFollowARedirectToAnotherHost() async throws {
        try await withServer { server in
            let client = try makeClient()
            let target = "http://localhost:\(server.port)/echo".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let response = try await client.send(HTTPRequest(
                url: server.url("/redirect?to=\(target)"),
                headers: [("Authorization", "Bearer secret"), ("Cookie", "a=b"), ("X-Other", "kept")], followRedirects: true))
            let headers = try json(response)["headers"] as? [String: String] ?? [:]
            #expect(headers["authorization"] == nil)
            #expect(headers["cookie"] == nil)
            #expect(headers["x-other"] == "kept")
        }
    }

    @Test func headerInjectionIsRefused() async throws {
        let client = try makeClient()
        await #expect(throws: HTTPError.invalidHeader(name: "X-Evil")) {
            try await client.send(HTTPRequest(url: "http://127.0.0.1:1/", headers: [("X-Evil", "a\r\nHost: other")]))
        }
    }

    @Test func redirectLoopStopsAtTheLimit() async throws {
        try await withServer { server in
            let client = try makeClient { $0.maxRedirects = 3 }
            await #expect(throws: HTTPError.tooManyRedirects) {
                try await client.send(HTTPRequest(url: server.url("/loop"), followRedirects: true))
            }
        }
    }

    @Test func redirectToPlainHTTPOnAPublicHostIsRefused() async throws {
        try await withServer { server in
            let client = try makeClient()
            let target = "http://example.invalid/x".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            await #expect(throws: HTTPError.insecureURL(host: "example.invalid")) {
                try await client.send(HTTPRequest(url: server.url("/redirect?to=\(target)"), followRedirects: true))
            }
        }
    }

    @Test func plainHTTPToAPublicHostIsRefusedBeforeAnyIO() async throws {
        let client = try makeClient()
        await #expect(throws: HTTPError.insecureURL(host: "example.invalid")) {
            try await client.send(HTTPRequest(url: "http://example.invalid/photos"))
        }
        await #expect(throws: HTTPError.invalidURL) { try await client.send(HTTPRequest(url: "ftp://127.0.0.1/x")) }
        await #expect(throws: HTTPError.invalidURL) { try await client.send(HTTPRequest(url: "not a url")) }
        await #expect(throws: HTTPError.invalidURL) { try await client.send(HTTPRequest(url: "127.0.0.1/x")) }
    }

    @Test func refusedConnectionIsANetworkError() async throws {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let client = try makeClient()
        do {
            _ = try await client.send(HTTPRequest(url: "http://127.0.0.1:1/"))
            Issue.record("expected a network error")
        } catch {
            guard case .network(let code, _) = error else { Issue.record("got \(error)"); return }
            #expect(code == 7)  // CURLE_COULDNT_CONNECT
        }
    }
}
