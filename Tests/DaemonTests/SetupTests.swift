import Foundation
import Shared
import Testing
import TestSupport

/// `splashctl setup`: the config and the keys written with mode 0600, accepted by splashd's own
/// check; `status` suggests setup until it has run and never after.
@Suite(.serialized) struct SetupTests {
    @Test func writesAConfigSplashdAcceptsAndStatusStopsHinting() async throws {
        let dir = TemporaryDirectory()
        let home = dir.path + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        try "anon-key-from-the-dashboard\n".write(toFile: dir.path + "/anon", atomically: true, encoding: .utf8)
        try "unsplash-access-key\n".write(toFile: dir.path + "/unsplash", atomically: true, encoding: .utf8)
        try await SplashdFixture.run { fixture in
            let daemon = try fixture.process(directory: dir.path + "/daemon")
            _ = try await daemon.waitUntilListening()
            let env = ["SPLASHD_SOCKET": daemon.socketPath, "HOME": home, "XDG_CONFIG_HOME": home + "/.config", "PATH": "/usr/bin:/bin"]

            let before = try await run(DaemonProcess.splashctlPath, ["status"], environment: env)
            #expect(before.status == 0 && before.stdout.contains("splashctl setup"))

            // Without a terminal, what is not given is an error, not a question.
            let missing = try await run(DaemonProcess.splashctlPath, ["setup", "--no-enable", "--no-sign-in"], environment: env)
            #expect(missing.status == 64 && missing.stderr.contains("--backend-url"))

            let setup = try await run(DaemonProcess.splashctlPath, [
                "setup", "--backend-url", "https://abcd.supabase.co", "--anon-key-file", dir.path + "/anon",
                "--unsplash-key-file", dir.path + "/unsplash", "--no-enable", "--no-sign-in",
            ], environment: env)
            #expect(setup.status == 0, "\(setup.stderr)")
            let config = home + "/.config/splashd/config.toml"
            for file in [config, home + "/.config/splashd/anon_key", home + "/.config/splashd/unsplash_key"] {
                let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
                #expect(mode == 0o600, "\(file) is \(String(mode, radix: 8))")
            }
            let text = try String(contentsOfFile: config, encoding: .utf8)
            #expect(text.contains("url = \"https://abcd.supabase.co\"") && text.contains("anon_key_file = "))
            #expect(!text.contains("anon-key-from-the-dashboard"), "no secret inline")

            // splashd reads it: the check passes.
            let check = try await run(DaemonProcess.splashdPath, ["--check-config", "--config", config], environment: env)
            #expect(check.status == 0, "\(check.stdout) \(check.stderr)")

            let after = try await run(DaemonProcess.splashctlPath, ["status"], environment: env)
            #expect(after.status == 0 && !after.stdout.contains("splashctl setup"))

            // Again: the old config is kept aside.
            let again = try await run(DaemonProcess.splashctlPath, [
                "setup", "--backend-url", "https://efgh.supabase.co", "--anon-key-file", dir.path + "/anon", "--no-enable", "--no-sign-in",
            ], environment: env)
            #expect(again.status == 0 && FileManager.default.fileExists(atPath: config + ".bak"))
            let json = try await run(DaemonProcess.splashctlPath, [
                "--json", "setup", "--backend-url", "https://efgh.supabase.co", "--anon-key-file", dir.path + "/anon", "--no-enable", "--no-sign-in",
            ], environment: env)
            let summary = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            #expect(summary?["config"] as? String == config && summary?["units"] as? String == "skipped", "\(json.stdout)")
            #expect(try String(contentsOfFile: config, encoding: .utf8).contains("efgh"))
        }
    }
}
