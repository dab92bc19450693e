#if canImport(Glibc)
import Glibc
#endif
import Control
import Foundation
import Shared
import SplashClient
import Support
import Testing
import TestSupport

@Suite(.serialized) struct LoadTests {
    /// 500 clients at once against a limit of 256 connections: every client gets an answer — a pong
    /// or a `busy` error — the daemon stays up, and the connection count returns to zero.
    @Test func fiveHundredClientsAtOnce() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer { $0.maximumConnections = 256 }
            // On a thread of its own: a connect blocks while the listen queue is full, and on a cooperative
            // thread it would hold one of the two the server needs to take connections off that queue.
            let connections = try await blockingWork { Result { try (0..<500).map { _ in try harness.raw() } } }.get()
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for connection in connections {
                    group.addTask {
                        // A refused connection may be closed before our request is written (EPIPE); its
                        // `busy` answer is still there to read.
                        try? await connection.write(Data(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#.utf8))
                        guard let line = try await connection.read(),
                              let answer = try JSONSerialization.jsonObject(with: line) as? [String: Any] else { return "closed" }
                        return answer["result"] != nil ? "pong" : (answer.errorKind ?? "other")
                    }
                }
                var outcomes: [String: Int] = [:]
                for try await outcome in group { outcomes[outcome, default: 0] += 1 }
                return outcomes
            }
            #expect(outcomes["pong", default: 0] >= 256, "\(outcomes)")
            // A refused client is told `busy` before the close (the daemon drains what it sent, so the close
            // cannot reset the connection and destroy the answer). Nothing else may happen.
            #expect(outcomes["pong", default: 0] + outcomes["busy", default: 0] == 500, "\(outcomes)")
            for connection in connections { await connection.close() }
            #expect(await eventually { harness.server.openConnections } until: { $0 == 0 } == 0)
            #expect(try await harness.client().send(PingRequest()).pong)
        }
    }

    /// A client that sends requests and never reads: the daemon stops reading from it once its answers
    /// back up (the client's writes eventually block), instead of buffering without end; others are
    /// served meanwhile.
    @Test func aClientThatNeverReadsIsThrottledNotBuffered() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer()
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                let bytes = Array(harness.socketPath.utf8)
                raw.copyBytes(from: bytes)
                raw[bytes.count] = 0
            }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            let request = Array(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"#.utf8) + [10]
            var sent = 0
            var blockedAt: Int?
            let deadline = ContinuousClock.now + .seconds(30)
            // Each status answer is ~10x its request: the daemon's writes fill our receive buffer first.
            while ContinuousClock.now < deadline, sent < 200 << 20 {
                let n = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n > 0 {
                    sent += n
                    continue
                }
                if errno == EAGAIN {
                    // Give the daemon a moment; if it still does not read, it has stopped reading from us.
                    try await Task.sleep(for: .milliseconds(200))
                    let again = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if again < 0 && errno == EAGAIN { blockedAt = sent; break }
                    if again > 0 { sent += again }
                } else {
                    break
                }
            }
            let blocked = try #require(blockedAt, "the daemon kept reading \(sent) bytes from a client that never reads")
            #expect(blocked < 50 << 20)
            #expect(try await harness.client().send(PingRequest()).pong, "other clients are still served")
        }
    }
}
