#if canImport(Glibc)
import Glibc
#endif
import Control
import Foundation
import Logging
import Shared
import SplashClient
import Testing
import TestSupport

@Suite(.serialized) struct SocketSecurityTests {
    @Test func socketIs0600InA0700Directory() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer()
            var info = stat()
            #expect(stat(harness.socketPath, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(stat((harness.socketPath as NSString).deletingLastPathComponent, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o700)
            await harness.stop()
            #expect(access(harness.socketPath, F_OK) != 0, "the socket file is removed on shutdown")
        }
    }

    @Test func aStaleSocketIsReplaced() async throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true)
        // A socket file nobody listens on, as a crashed daemon leaves behind.
        let fd = try Self.bindUnixSocket(directory.file("run/control.sock"))
        close(fd)
        try await SplashdFixture.run { fixture in
            _ = try await fixture.controlServer { $0.socket = .path(directory.file("run/control.sock")) }
            #expect(try await SplashClient.connect(socketPath: directory.file("run/control.sock")).send(PingRequest()).pong)
        }
    }

    @Test func aLiveSocketIsNotTakenOver() async throws {
        try await SplashdFixture.run { fixture in
            let first = try await fixture.controlServer()
            let second = ControlServer(
                configuration: .init(socket: .path(first.socketPath)), router: .init(logger: .init(label: "t")),
                logger: .init(label: "t"), group: ServerHarness.group)
            await #expect(throws: ListeningSocketError.inUse(first.socketPath)) { try await second.run() }
            #expect(try await first.client().send(PingRequest()).pong, "the running daemon keeps its socket")
        }
    }

    @Test func aFileThatIsNotASocketIsLeftAlone() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("control.sock")
        try Data("precious".utf8).write(to: URL(fileURLWithPath: path))
        let server = ControlServer(
            configuration: .init(socket: .path(path)), router: .init(logger: .init(label: "t")),
            logger: .init(label: "t"), group: ServerHarness.group)
        await #expect(throws: ListeningSocketError.notASocket(path)) { try await server.run() }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious")
    }

    @Test func peerCredentialsAllowOwnerAndRootOnly() {
        let peer = PeerCredentials(pid: 1, uid: 1000, gid: 1000)
        #expect(peer.isAllowed(daemonUID: 1000))
        #expect(!peer.isAllowed(daemonUID: 1001))
        #expect(PeerCredentials(pid: 1, uid: 0, gid: 0).isAllowed(daemonUID: 1001))
    }

    /// Another uid that reaches the socket (here the test loosens the file modes on purpose) is refused
    /// by the SO_PEERCRED check with permission_denied and closed. Needs root to switch uid.
    @Test(.enabled(if: getuid() == 0, "needs root to run a client as another user"))
    func anotherUserIsRefusedByThePeerCheck() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer { $0.daemonUID = 0 }
            // With the shipped modes (0700 directory) the other user cannot even reach the socket.
            let blocked = try await Self.runAsNobody(socket: harness.socketPath)
            #expect(blocked.contains("PermissionError") || blocked.contains("Permission denied"), "\(blocked)")
            // Loosen them to reach the peer check itself.
            chmod(harness.directory, 0o755)
            chmod((harness.socketPath as NSString).deletingLastPathComponent, 0o755)
            chmod(harness.socketPath, 0o666)
            let output = try await Self.runAsNobody(socket: harness.socketPath)
            let firstLine = try #require(output.split(separator: "\n").first)
            let answer = try #require(try? JSONSerialization.jsonObject(with: Data(firstLine.utf8)) as? [String: Any], "\(output)")
            #expect(answer.errorKind == "permission_denied", "\(output)")
            #expect(output.contains("EOF"), "the connection is closed after the refusal: \(output)")
            #expect(try await harness.client().send(PingRequest()).pong, "root still gets in")
        }
    }

    /// Runs the client as uid 65534. Waits without blocking a cooperative thread: the server under
    /// test needs those threads to answer.
    static func runAsNobody(socket: String) async throws -> String {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(sys.argv[1])
            except OSError as e:
                print(type(e).__name__, e); sys.exit(0)
            s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"daemon.status"}\\n')
            s.settimeout(10)
            data = b''
            while True:
                chunk = s.recv(65536)
                if not chunk: break
                data += chunk
            print(data.decode().strip()); print("EOF")
            """
        let result = try await ChildProcess.run(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, socket],
            environment: ["PATH": "/usr/bin:/bin"])
        return result.stdout + result.stderr
    }

    static func bindUnixSocket(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw POSIXError(.EADDRINUSE) }
        return fd
    }
}
