import Foundation
import TestSupport
import Testing
@testable import HTTP

private let opensslPath: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/bin/openssl"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

/// Certificate verification against a self-signed certificate made by openssl for 127.0.0.1.
@Suite(.enabled(if: opensslPath != nil, "openssl is not installed"))
final class TLSTests {
    private let directory: String

    init() throws { directory = try temporaryDirectory() }
    deinit { try? FileManager.default.removeItem(atPath: directory) }

    @Test func selfSignedCertificateIsRejectedByDefault() async throws {
        let tls = try await makeSelfSignedCertificate(in: directory)
        try await withServer(tls: tls) { server in
            let client = try makeClient()
            do {
                _ = try await client.send(HTTPRequest(url: server.url("/echo")))
                Issue.record("expected a TLS failure")
            } catch {
                guard case .tls(let code, _)? = error as? HTTPError else { Issue.record("got \(error)"); return }
                #expect(code == 60)  // CURLE_PEER_FAILED_VERIFICATION
            }
        }
    }

    @Test func configuredCAFileIsTrusted() async throws {
        let tls = try await makeSelfSignedCertificate(in: directory)
        try await withServer(tls: tls) { server in
            let client = try makeClient { $0.caFile = tls.cert }
            let response = try await client.send(HTTPRequest(url: server.url("/echo")))
            #expect(response.status == 200)
            #expect(response.effectiveURL.hasPrefix("https://"))
        }
    }
}
