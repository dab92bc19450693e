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

    /// Writes cert.pem and key.pem for CN/SAN 127.0.0.1 into a fresh directory.
    private func makeCertificate() throws -> (cert: String, key: String) {
        let cert = directory + "/cert.pem", key = directory + "/key.pem"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opensslPath!)
        process.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        ChildProcess.reap(process)
        #expect(FileManager.default.fileExists(atPath: cert) && FileManager.default.fileExists(atPath: key))
        return (cert, key)
    }

    @Test func selfSignedCertificateIsRejectedByDefault() async throws {
        let tls = try makeCertificate()
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
        let tls = try makeCertificate()
        try await withServer(tls: tls) { server in
            let client = try makeClient { $0.caFile = tls.cert }
            let response = try await client.send(HTTPRequest(url: server.url("/echo")))
            #expect(response.status == 200)
            #expect(response.effectiveURL.hasPrefix("https://"))
        }
    }
}
