#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TestSupport
import Testing
@testable import HTTP

private let nghttpd = ["/usr/sbin/nghttpd", "/usr/bin/nghttpd"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// HTTP/2 when the server offers it: parallel downloads share one multiplexed connection rather than
/// opening one each (nghttpd, nghttp2's reference server, over TLS with a test CA; it logs every
/// connection it accepts, so the test counts them).
///
/// Debian 12's libcurl 7.88 now and then leaves one multiplexed stream unserved after the server has
/// sent all of it (1 run in 6 here); the transfer engine nudges a quiet transfer after a second
/// (TransferEngine.nudgeStalled), so every download must still arrive, well before the 30 s stall limit.
@Suite(.enabled(if: nghttpd != nil, "nghttpd is not installed (Debian: nghttp2-server)"))
struct HTTP2Tests {
    @Test func parallelDownloadsShareOneMultiplexedConnection() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let root = directory + "/www"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let files = 16
        for n in 0..<files { try Data(fileBytes(200_000 + n)).write(to: URL(fileURLWithPath: "\(root)/f\(n).bin")) }
        let tls = try await makeSelfSignedCertificate(in: directory)
        // A port outside the kernel's ephemeral range, so no other test's server (bound to port 0) can
        // take it between choosing and binding; nghttpd exits if it is taken, and another is tried.
        let log = directory + "/nghttpd.log"
        var started: (ChildProcess, Int)?
        for _ in 0..<10 where started == nil {
            let port = Int.random(in: 20_000..<30_000)
            let server = try ChildProcess(
                executable: nghttpd!, arguments: ["-v", "-d", root, "--address=127.0.0.1", String(port), tls.key, tls.cert],
                environment: [:], stdoutPath: log, stderrPath: log)
            if try await waitForListener(port: port, server: server) { started = (server, port) }
        }
        let (server, port) = try #require(started)
        defer {
            server.signal(SIGTERM)
            _ = server.exitStatus
        }

        let client = try makeClient {
            $0.caFile = tls.cert
            $0.maxConnectionsPerHost = 8
        }
        let responses = try await withThrowingTaskGroup(of: (Int, HTTPResponse).self) { group in
            for n in 0..<files {
                group.addTask { (n, try await client.send(HTTPRequest(url: "https://127.0.0.1:\(port)/f\(n).bin"))) }
            }
            var all: [(Int, HTTPResponse)] = []
            for try await response in group { all.append(response) }
            return all
        }
        for (n, response) in responses {
            #expect(response.status == 200 && response.httpVersion == "2")
            #expect(response.body == fileBytes(200_000 + n))
        }
        // nghttpd -v names each connection "[id=N]" on its lines; count those that carried a request
        // (the readiness probe connected and left without one).
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let ids = Set(text.split(separator: "\n").filter { $0.contains(":method: GET") }.compactMap { line -> Substring? in
            guard let start = line.range(of: "[id="), let end = line[start.upperBound...].firstIndex(of: "]") else { return nil }
            return line[start.upperBound..<end]
        })
        let streams = text.split(separator: "\n").filter { $0.contains(":method: GET") }.count
        #expect(streams == files && ids.count == 1, "\(files) parallel requests: \(streams) streams over \(ids.count) connections")
    }

    /// True once the server accepts connections; false if it exited (the port was taken).
    private func waitForListener(port: Int, server: ChildProcess) async throws -> Bool {
        for _ in 0..<100 {
            if !server.isRunning { return false }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        server.signal(SIGKILL)
        return false
    }
}

/// cert.pem and key.pem for CN/SAN 127.0.0.1, made by openssl in `directory`.
func makeSelfSignedCertificate(in directory: String) async throws -> (cert: String, key: String) {
    let cert = directory + "/cert.pem", key = directory + "/key.pem"
    let result = try await ChildProcess.run("/usr/bin/openssl", [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    return (cert, key)
}
