import Foundation
import Shared
import Testing
import TestSupport

/// splashctl as a person runs it: output, --json, exit codes.
@Suite(.serialized) struct SplashctlTests {
    @Test func daemonNotRunningSaysHowToStartItAndExits69() async throws {
        let result = try await run(DaemonProcess.splashctlPath, ["--socket", "/nonexistent/splashd.sock", "status"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("splashd is not running"))
        #expect(result.stderr.split(separator: "\n").count == 1, "one line")
    }

    @Test func statusJSONAndErrorsWithExitCodes() async throws {
        let dir = TemporaryDirectory()
        try await SplashdFixture.run { fixture in
            let daemon = try fixture.process(directory: dir.path)
            _ = try await daemon.waitUntilListening()
            let env = ["SPLASHD_SOCKET": daemon.socketPath, "PATH": "/usr/bin:/bin"]

            let human = try await run(DaemonProcess.splashctlPath, ["status"], environment: env)
            #expect(human.status == 0)
            #expect(human.stdout.contains("splashd \(SplashVersion.current)"))
            #expect(human.stdout.contains("signed out"))
            #expect(!human.stdout.contains("\u{1B}["), "no colour when stdout is not a terminal")

            let json = try await run(DaemonProcess.splashctlPath, ["--json", "status"], environment: env)
            #expect(json.status == 0)
            let status = try JSONCoding.decoder().decode(DaemonStatus.self, from: Data(json.stdout.utf8))
            #expect(status.pid == daemon.pid)

            let list = try await run(DaemonProcess.splashctlPath, ["photos", "list", "--json"], environment: env)
            #expect(try JSONCoding.decoder().decode(PhotosListResult.self, from: Data(list.stdout.utf8)).total == 0)

            let bad = try await run(DaemonProcess.splashctlPath, ["--json", "photos", "list", "--color", "plaid"], environment: env)
            #expect(bad.status == 65)
            #expect(bad.stdout.isEmpty)
            let error = try JSONCoding.decoder().decode(RPCError.self, from: Data(bad.stderr.utf8))
            #expect(error.kind == .invalidInput && error.data?.field == "color")

            let usage = try await run(DaemonProcess.splashctlPath, ["photos", "list", "--sort", "sideways"], environment: env)
            #expect(usage.status == 64)
        }
    }
}
