import Testing
@testable import HTTP

@Suite struct URLPolicyTests {
    @Test(arguments: [
        "http://127.0.0.1/", "http://127.9.8.7:8080/x", "http://[::1]:5000/", "http://localhost/", "http://LOCALHOST:1/",
        "https://example.com/", "HTTPS://Example.com/a?b=c",
    ])
    func allowed(_ url: String) throws {
        _ = try URLPolicy(insecureHTTPHosts: []).check(url)
    }

    @Test(arguments: ["http://example.com/", "http://10.0.0.1/", "http://128.0.0.1/", "http://[::2]/", "http://localhost.example.com/"])
    func refused(_ url: String) {
        #expect(throws: HTTPError.self) { try URLPolicy(insecureHTTPHosts: []).check(url) }
    }

    @Test func allowListAdmitsNamedHosts() throws {
        let policy = URLPolicy(insecureHTTPHosts: ["devstack.lan"])
        #expect(try policy.check("http://DEVSTACK.lan:8000/rest") == .init(scheme: "http", host: "devstack.lan", port: 8000))
        #expect(throws: HTTPError.insecureURL(host: "other.lan")) { try policy.check("http://other.lan/") }
    }

    @Test func originIncludesTheDefaultPort() {
        #expect(URLPolicy.parse("https://Example.com/a") == .init(scheme: "https", host: "example.com", port: 443))
        #expect(URLPolicy.parse("http://[::1]/") == .init(scheme: "http", host: "::1", port: 80))
    }

    @Test(arguments: ["ftp://127.0.0.1/", "file:///etc/passwd", "no scheme", "127.0.0.1/x", ""])
    func invalid(_ url: String) {
        #expect(throws: HTTPError.invalidURL) { try URLPolicy(insecureHTTPHosts: []).check(url) }
    }
}
