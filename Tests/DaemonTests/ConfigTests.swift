@testable import Daemon
import HTTP
import Foundation
import Logging
import Testing
import TestSupport

@Suite struct ConfigFileTests {
    @Test func parsesTablesStringsNumbersBooleansAndComments() throws {
        let file = try ConfigFile(path: "c.toml", text: """
            # splashd
            [backend]
            url = "https://abc.supabase.co"   # trailing comment
            anon_key = 'literal # not a comment'
            [control]
            max_connections = 1_000
            ratio = 0.5
            verbose = true
            escaped = "a\\"b\\n"
            """)
        #expect(file.values["backend.url"] == .string("https://abc.supabase.co"))
        #expect(file.values["backend.anon_key"] == .string("literal # not a comment"))
        #expect(file.values["control.max_connections"] == .integer(1000))
        #expect(file.values["control.ratio"] == .double(0.5))
        #expect(file.values["control.verbose"] == .bool(true))
        #expect(file.values["control.escaped"] == .string("a\"b\n"))
        #expect(file.line(of: "control.max_connections") == 6)
    }

    /// What the hand-made subset refused and a person may well write: arrays, inline tables, dotted
    /// keys, multi-line strings. The line of a key after them is still the line that sets it.
    @Test func acceptsTheRestOfTOMLAndStillFindsEachKeysLine() throws {
        let file = try ConfigFile(path: "c.toml", text: """
            log.level = "debug"
            backend = { url = "https://abc.supabase.co", anon_key = "k" }
            [network]
            plain_http_hosts = [
              "a.test",   # a comment inside
              "b.test",
            ]
            [unsplash]
            access_key = \"\"\"
            multi
            line\"\"\"
            api_url = 'https://api.unsplash.test'
            """)
        #expect(file.values["log.level"] == .string("debug"))
        #expect(file.values["backend.url"] == .string("https://abc.supabase.co"))
        #expect(file.values["backend.anon_key"] == .string("k"))
        #expect(file.values["network.plain_http_hosts"] == .array([.string("a.test"), .string("b.test")]))
        #expect(file.values["unsplash.access_key"] == .string("multi\nline"))
        #expect(file.line(of: "log.level") == 1)
        #expect(file.line(of: "backend.anon_key") == 2)
        #expect(file.line(of: "network.plain_http_hosts") == 7, "an array spanning lines is found where it closes")
        #expect(file.line(of: "unsplash.api_url") == 12)
        #expect(file.line(of: "unsplash.nothing") == nil)
    }

    @Test(arguments: [
        ("key value", 1),
        ("[backend\nurl = 1", 1),
        ("a = ", 1),
        ("a = \"open", 1),
        ("a = bare", 1),
        ("a = 1\na = 2", 2),
        ("a b = 1", 1),
        ("a = \"x\" y", 1),
        ("a = \"\\q\"", 1),
        ("[t]\nx = 1\n[t]", 3),
    ])
    func everySyntaxErrorNamesFileAndLine(text: String, line: Int) {
        do {
            _ = try ConfigFile(path: "/etc/splashd/config.toml", text: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.line == line, "\(error)")
            #expect(error.description.hasPrefix("/etc/splashd/config.toml:\(line): "), "\(error)")
            #expect(error.message.count > 10, "toml++ says what is wrong: \(error)")
        }
    }
}

@Suite struct DaemonConfigTests {
    @Test func fileThenEnvironmentWin() throws {
        let dir = TemporaryDirectory()
        try "sekrit-from-file\n".write(toFile: dir.file("anon"), atomically: true, encoding: .utf8)
        try """
            [backend]
            url = "https://file.example"
            anon_key_file = "\(dir.file("anon"))"
            [log]
            level = "debug"
            """.write(toFile: dir.file("c.toml"), atomically: true, encoding: .utf8)
        let fromFile = try DaemonConfig.load(file: dir.file("c.toml"), environment: [:])
        #expect(fromFile.backendURL == "https://file.example")
        #expect(fromFile.anonKey == "sekrit-from-file")
        #expect(fromFile.logLevel == .debug)
        let overridden = try DaemonConfig.load(
            file: dir.file("c.toml"), environment: ["SPLASHD_BACKEND_URL": "http://127.0.0.1:9", "SPLASHD_NASA_API_URL": "http://127.0.0.1:8/nasa"])
        #expect(overridden.backendURL == "http://127.0.0.1:9")
        #expect(overridden.nasaAPIURL == "http://127.0.0.1:8/nasa")
        #expect(overridden.anonKey == "sekrit-from-file")
    }

    @Test func unknownKeysWrongTypesAndRangesAreErrorsWithLines() throws {
        let cases = [
            ("[backend]\nuri = \"x\"\n", "c.toml:2: unknown key 'backend.uri'"),
            ("[control]\nmax_connections = \"many\"\n", "c.toml:2: control.max_connections must be an integer"),
            ("[control]\nmax_line_bytes = 10\n", "c.toml:2: control.max_line_bytes must be an integer from 1024"),
            ("[log]\nlevel = \"loud\"\n", "c.toml:2: log level 'loud'"),
            ("[backend]\nanon_key_file = \"/nonexistent/key\"\n", "c.toml:2: backend.anon_key_file: cannot read /nonexistent/key"),
            ("backend = { uri = \"x\" }\n", "c.toml:1: unknown key 'backend.uri'"),
            ("[network]\nplain_http_hosts = [\n  1,\n]\n", "c.toml:4: network.plain_http_hosts must be an array of strings"),
            ("[backend]\nurl = \"\"\"\nx\n\"\"\"\n[control]\nmax_connections = \"many\"\n", "c.toml:6: control.max_connections must be an integer"),
            ("[images]\nconcurrency = 1979-05-27\n", "c.toml:2: images.concurrency must be an integer"),
            ("[pictures]\nterminal = \"sixels\"\n", "c.toml:2: pictures.terminal must be one of auto, none, symbols, sixel, kitty, iterm"),
            ("[network]\non_metered = \"sometimes\"\n", "c.toml:2: network.on_metered must be one of defer-bulk, pause, ignore"),
            ("[power]\non_battery = true\n", "c.toml:2: power.on_battery must be a string"),
            ("[network]\nmax_download_rate = \"fast\"\n", "c.toml:2: network.max_download_rate must be a rate like \"2 MB/s\""),
            ("[network]\nmax_upload_rate = \"0 MB/s\"\n", "c.toml:2: network.max_upload_rate must be from 1 KiB/s to 1 TB/s"),
            ("[network]\nmax_download_rate = 2000000\n", "c.toml:2: network.max_download_rate must be a string"),
        ]
        for (text, expected) in cases {
            var config = DaemonConfig()
            do {
                try config.apply(try ConfigFile(path: "c.toml", text: text))
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.description.hasPrefix(expected), "\(error)")
            }
        }
    }

    @Test func ratesAreWrittenAsAPersonWritesThem() throws {
        var config = DaemonConfig()
        try config.apply(try ConfigFile(path: "c.toml", text: "[network]\nmax_download_rate = \"2 MB/s\"\nmax_upload_rate = \"1.5 MiB\""))
        #expect(config.bandwidth.download == 2_000_000 && config.bandwidth.upload == 1_572_864)
        try config.apply(try ConfigFile(path: "c.toml", text: "[network]\nmax_download_rate = \"unlimited\"\nmax_upload_rate = \"500kb/s\""))
        #expect(config.bandwidth.download == nil && config.bandwidth.upload == 500_000)
        // A reload applies the rates at once; the summary says so.
        var fresh = config
        fresh.bandwidth.download = 1_000_000
        #expect(config.liveChanges(to: fresh) == "network rates download unlimited, upload 500000 B/s → download 1000000 B/s, upload 500000 B/s")
    }

    @Test func plainHTTPHostsAreAnArrayOrACommaList() throws {
        var config = DaemonConfig()
        try config.apply(try ConfigFile(path: "c.toml", text: "network.plain_http_hosts = [\"A.test\", \"b.test\"]"))
        #expect(config.plainHTTPHosts == ["a.test", "b.test"])
        try config.apply(try ConfigFile(path: "c.toml", text: "network.plain_http_hosts = \"c.test, d.test\""))
        #expect(config.plainHTTPHosts == ["c.test", "d.test"])
    }

    @Test func liveChangesSayWhatAppliesNowAndWhatWaits() {
        var old = DaemonConfig()
        old.logLevel = .info
        var new = old
        new.logLevel = .debug
        #expect(old.liveChanges(to: new) == "log.level info → debug")
        new.backendURL = "https://other"
        #expect(old.liveChanges(to: new).contains("other settings apply at the next start"))
        #expect(old.liveChanges(to: old) == "nothing changed")
    }
}

@Suite struct DirectoriesTests {
    @Test func flagsThenSystemdThenXDGThenHome() throws {
        let home = ["HOME": "/home/ana"]
        let defaults = try DaemonDirectories.resolve(flags: .init(), environment: home, uid: 1000)
        #expect(defaults.state == "/home/ana/.local/state/splashd")
        #expect(defaults.data == "/home/ana/.local/share/splashd")
        #expect(defaults.cache == "/home/ana/.cache/splashd")
        #expect(defaults.socket == "/tmp/splashd-1000/control.sock")

        let xdg = try DaemonDirectories.resolve(flags: .init(), environment: home.merging([
            "XDG_STATE_HOME": "/x/state", "XDG_DATA_HOME": "/x/data", "XDG_CACHE_HOME": "/x/cache", "XDG_RUNTIME_DIR": "/run/user/1000",
        ]) { $1 }, uid: 1000)
        #expect([xdg.state, xdg.data, xdg.cache, xdg.socket] == ["/x/state/splashd", "/x/data/splashd", "/x/cache/splashd", "/run/user/1000/splashd/control.sock"])

        let systemd = try DaemonDirectories.resolve(flags: .init(), environment: home.merging([
            "STATE_DIRECTORY": "/var/lib/splashd", "CACHE_DIRECTORY": "/var/cache/splashd", "RUNTIME_DIRECTORY": "/run/splashd",
            "XDG_STATE_HOME": "/x/state",
        ]) { $1 }, uid: 0)
        #expect([systemd.state, systemd.cache, systemd.socket] == ["/var/lib/splashd", "/var/cache/splashd", "/run/splashd/control.sock"])
        #expect(systemd.data == "/home/ana/.local/share/splashd", "the library follows XDG in every mode")

        let flags = try DaemonDirectories.resolve(
            flags: .init(stateDir: "/f/s", dataDir: "/f/d", cacheDir: "/f/c", socket: "/f/r/sock"),
            environment: ["STATE_DIRECTORY": "/var/lib/splashd"], uid: 0)
        #expect([flags.state, flags.data, flags.cache, flags.socket, flags.runtime] == ["/f/s", "/f/d", "/f/c", "/f/r/sock", "/f/r"])
    }

    @Test func noHomeAndNothingElseIsAClearError() {
        #expect(throws: DirectoryError.noHome) { try DaemonDirectories.resolve(flags: .init(), environment: [:], uid: 1) }
    }

    @Test func createsPrivateDirectories() throws {
        let dir = TemporaryDirectory()
        let directories = try DaemonDirectories.resolve(
            flags: .init(stateDir: dir.file("s/a"), dataDir: dir.file("d"), cacheDir: dir.file("c"), socket: dir.file("r/x.sock")),
            environment: [:], uid: 0)
        try directories.create()
        for path in [dir.file("s/a"), dir.file("d"), dir.file("c")] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == 0o700, "\(path)")
        }
    }
}
