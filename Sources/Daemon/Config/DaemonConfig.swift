import Foundation
import HTTP
import Logging
import Shared

/// Everything splashd can be told. Defaults, then the config file, then `SPLASHD_*` environment
/// variables, then command-line flags; each later one wins.
public struct DaemonConfig: Sendable, Equatable {
    public var backendURL: String?
    public var anonKey: String?
    public var unsplashAPIURL = "https://api.unsplash.com"
    public var unsplashAccessKey: String?
    public var nasaAPIURL = "https://images-api.nasa.gov"
    public var logLevel: Logger.Level = .info
    public var maximumLineBytes = 1 << 20
    public var maximumConnections = 256
    public var eventQueueCapacity = 1024
    public var idleTimeoutSeconds = 300
    /// Hosts reachable over plain http besides loopback (a test network, a LAN stand-in). TLS is the
    /// rule everywhere else.
    public var plainHTTPHosts: [String] = []
    /// A CA bundle to verify servers with, instead of the system's.
    public var caFile: String?
    /// How often the server's changes are pulled while signed in and online (besides on reconnect and
    /// when asked), with ±20 % jitter.
    public var pullIntervalSeconds = 300
    /// The same while the live channel (Realtime) is up: then changes arrive as they happen and the
    /// timed pull is only a safety net.
    public var pullIntervalLiveSeconds = 3600
    /// The live channel (Supabase Realtime) while signed in and online; off: the timed pull only.
    public var realtimeEnabled = true
    /// A heartbeat every this many seconds, each answered within `realtimeReplySeconds`, or the socket
    /// is given up and opened again; a join answered within `realtimeJoinSeconds`.
    public var realtimeHeartbeatSeconds = 25
    public var realtimeReplySeconds = 10
    public var realtimeJoinSeconds = 15
    /// Cache files (not the library) are evicted least-recently-used above this many bytes.
    public var cacheMaxBytes: Int64 = 1 << 30
    /// The memory tier of pictures decoded for terminals, in MiB (0: none kept).
    public var picturesMemoryMiB = 64
    /// How splashctl's pictures are drawn when neither `--image` nor SPLASHCTL_IMAGE says: `auto` (what
    /// splashctl detects), `none`, or a mode forced (symbols, kitty, sixel, iterm).
    public var picturesTerminal = "auto"
    /// Google: a Desktop OAuth client of the person's own, and where Google's services are
    /// (devstack stands in for them in tests).
    public var googleClientId: String?
    public var googleClientSecret: String?
    public var googleAuthURL = "https://accounts.google.com/o/oauth2/v2/auth"
    public var googleTokenURL = "https://oauth2.googleapis.com/token"
    public var googleRevokeURL = "https://oauth2.googleapis.com/revoke"
    public var googlePickerURL = "https://photospicker.googleapis.com"
    /// Items asked per page of a picking session's list (the API allows up to 100).
    public var googlePickerPageSize = 100
    /// Image transfers at once (one curl multi handle).
    public var imagesConcurrency = 8
    /// The rendition of a liked photo the library keeps (a key of the photo's `urls`).
    public var imagesVariant = "regular"
    /// Images above this many megapixels are refused (edits, imports) from their header.
    public var imagesMaxMegapixels = 64
    /// A downloaded image file larger than this many MiB is refused (announced or as it streams).
    public var imagesMaxFileMiB = 48
    /// JPEG quality of saved edits.
    public var editsJPEGQuality = 90
    /// Perceptual hashes at most this many bits apart (of 64) are near-duplicates.
    public var duplicateThreshold = 8
    /// A like of a photo whose file has not been compared with the library yet waits at most this long
    /// for the comparison before it is sent anyway (0: likes never wait).
    public var duplicateCheckSeconds = 15
    /// A kept search page younger than this answers from the store without asking the source again;
    /// an older one answers from the store and is refreshed in the background.
    public var searchFreshSeconds = 60
    /// The original of a liked or edited local photo above this many MiB stays on this machine (its
    /// upload is rejected, with the reason).
    public var originalsMaxMiB = 100
    /// The library as a folder of links for picture viewers (`My Collection/`, `Edits/`); nil: the XDG
    /// Pictures folder's `Splash`, resolved by `load` (still nil when there is no home to resolve in).
    public var picturesFolder: String?
    /// Whether that folder is kept; off, the entries splashd made there are removed at the start.
    public var picturesExport = true
    /// The web gallery on loopback (`splashctl open`).
    public var webEnabled = true
    /// Its port, on 127.0.0.1 and ::1 (0: whatever port is free, said by `web.open`).
    public var webPort = 8426
    /// The gallery page's files; nil: where they are installed beside the binary.
    public var webRoot: String?
    /// How long a gallery connection may be quiet, between requests or before its first one's head
    /// (no key: a browser closes an idle connection well before; tests shorten it).
    public var webIdleSeconds: Int64 = 60
    /// On a metered network (NetworkManager's word): bulk transfers wait (library and originals
    /// downloads, prefetched thumbnails, originals uploads), or all of sync waits, or nothing does.
    public var onMetered = MeteredPolicy.deferBulk
    /// On battery (UPower), and with power saver on (power-profiles-daemon): background work on the
    /// CPU (perceptual hashes, screen-sized copies, the duplicate scan, prefetch) waits, or not.
    public var onBattery = PowerPolicy.deferBackground
    public var onPowerSaver = PowerPolicy.deferBackground
    /// What all transfers together keep under, in bytes a second (`network.max_download_rate`,
    /// `network.max_upload_rate`); nil: no limit. Changed by a reload without a restart.
    public var bandwidth = BandwidthLimits.Rates()
    /// Desktop notifications of what needs the person (signed out, a change refused, a like held).
    public var notificationsEnabled = true

    public enum MeteredPolicy: String, Sendable, CaseIterable {
        case deferBulk = "defer-bulk"
        case pause
        case ignore
    }

    public enum PowerPolicy: String, Sendable, CaseIterable {
        case deferBackground = "defer-background"
        case ignore
    }

    public init() {}

    /// Every key the config file accepts, with what it sets. Unknown keys are errors (a typo should
    /// not be silently ignored).
    static let keys: [String: @Sendable (inout DaemonConfig, ConfigEntry) throws(ConfigError) -> Void] = [
        "backend.url": { config, entry throws(ConfigError) in config.backendURL = try entry.string() },
        "backend.anon_key": { config, entry throws(ConfigError) in config.anonKey = try entry.string() },
        "backend.anon_key_file": { config, entry throws(ConfigError) in config.anonKey = try entry.secret() },
        "unsplash.api_url": { config, entry throws(ConfigError) in config.unsplashAPIURL = try entry.string() },
        "unsplash.access_key": { config, entry throws(ConfigError) in config.unsplashAccessKey = try entry.string() },
        "unsplash.access_key_file": { config, entry throws(ConfigError) in config.unsplashAccessKey = try entry.secret() },
        "nasa.api_url": { config, entry throws(ConfigError) in config.nasaAPIURL = try entry.string() },
        "log.level": { config, entry throws(ConfigError) in config.logLevel = try parseLevel(try entry.string(), entry.path) },
        "control.max_line_bytes": { config, entry throws(ConfigError) in
            config.maximumLineBytes = try entry.integer(in: 1024...(64 << 20))
        },
        "control.max_connections": { config, entry throws(ConfigError) in config.maximumConnections = try entry.integer(in: 1...100_000) },
        "control.event_queue": { config, entry throws(ConfigError) in config.eventQueueCapacity = try entry.integer(in: 1...1_000_000) },
        "network.plain_http_hosts": { config, entry throws(ConfigError) in config.plainHTTPHosts = try entry.hosts() },
        "sync.pull_interval_seconds": { config, entry throws(ConfigError) in
            config.pullIntervalSeconds = try entry.integer(in: 10...86_400)
        },
        "sync.pull_interval_live_seconds": { config, entry throws(ConfigError) in
            config.pullIntervalLiveSeconds = try entry.integer(in: 60...86_400)
        },
        "realtime.enabled": { config, entry throws(ConfigError) in config.realtimeEnabled = try entry.bool() },
        "realtime.heartbeat_seconds": { config, entry throws(ConfigError) in
            config.realtimeHeartbeatSeconds = try entry.integer(in: 1...60)
        },
        "realtime.reply_timeout_seconds": { config, entry throws(ConfigError) in
            config.realtimeReplySeconds = try entry.integer(in: 1...60)
        },
        "realtime.join_timeout_seconds": { config, entry throws(ConfigError) in
            config.realtimeJoinSeconds = try entry.integer(in: 1...120)
        },
        "network.ca_file": { config, entry throws(ConfigError) in config.caFile = try entry.string() },
        "control.idle_timeout_seconds": { config, entry throws(ConfigError) in
            config.idleTimeoutSeconds = try entry.integer(in: 1...86_400)
        },
        "pictures.memory_mib": { config, entry throws(ConfigError) in config.picturesMemoryMiB = try entry.integer(in: 0...4096) },
        "pictures.folder": { config, entry throws(ConfigError) in
            let folder = try entry.string()
            guard folder.hasPrefix("/") || folder.hasPrefix("~/"), !folder.contains("\0") else {
                throw entry.refused("must be an absolute path or start with ~/")
            }
            config.picturesFolder = folder
        },
        "google.client_id": { config, entry throws(ConfigError) in config.googleClientId = try entry.string() },
        "google.client_secret": { config, entry throws(ConfigError) in config.googleClientSecret = try entry.string() },
        "google.client_secret_file": { config, entry throws(ConfigError) in config.googleClientSecret = try entry.secret() },
        "google.auth_url": { config, entry throws(ConfigError) in config.googleAuthURL = try entry.string() },
        "google.token_url": { config, entry throws(ConfigError) in config.googleTokenURL = try entry.string() },
        "google.revoke_url": { config, entry throws(ConfigError) in config.googleRevokeURL = try entry.string() },
        "google.picker_url": { config, entry throws(ConfigError) in config.googlePickerURL = try entry.string() },
        "google.picker_page_size": { config, entry throws(ConfigError) in config.googlePickerPageSize = try entry.integer(in: 1...100) },
        "pictures.terminal": { config, entry throws(ConfigError) in
            config.picturesTerminal = try entry.choice(of: ["auto", "none"] + TerminalSpec.Mode.allCases.map(\.rawValue))
        },
        "pictures.export": { config, entry throws(ConfigError) in config.picturesExport = try entry.bool() },
        "cache.max_bytes": { config, entry throws(ConfigError) in config.cacheMaxBytes = Int64(try entry.integer(in: 0...(1 << 50))) },
        "images.concurrency": { config, entry throws(ConfigError) in config.imagesConcurrency = try entry.integer(in: 1...64) },
        "images.variant": { config, entry throws(ConfigError) in
            config.imagesVariant = try entry.choice(of: ["raw", "full", "regular", "small", "thumb", "orig", "large", "medium"])
        },
        "images.max_megapixels": { config, entry throws(ConfigError) in config.imagesMaxMegapixels = try entry.integer(in: 1...1000) },
        "images.max_file_mb": { config, entry throws(ConfigError) in config.imagesMaxFileMiB = try entry.integer(in: 1...4096) },
        "originals.max_mib": { config, entry throws(ConfigError) in config.originalsMaxMiB = try entry.integer(in: 1...200) },
        "search.fresh_seconds": { config, entry throws(ConfigError) in config.searchFreshSeconds = try entry.integer(in: 0...86_400) },
        "import.duplicate_threshold": { config, entry throws(ConfigError) in config.duplicateThreshold = try entry.integer(in: 0...32) },
        "import.duplicate_check_seconds": { config, entry throws(ConfigError) in
            config.duplicateCheckSeconds = try entry.integer(in: 0...3600)
        },
        "edits.jpeg_quality": { config, entry throws(ConfigError) in config.editsJPEGQuality = try entry.integer(in: 1...100) },
        "web.enabled": { config, entry throws(ConfigError) in config.webEnabled = try entry.bool() },
        "web.port": { config, entry throws(ConfigError) in config.webPort = try entry.integer(in: 0...65_535) },
        "web.root": { config, entry throws(ConfigError) in config.webRoot = try entry.string() },
        "network.on_metered": { config, entry throws(ConfigError) in config.onMetered = try entry.choice(MeteredPolicy.self) },
        "power.on_battery": { config, entry throws(ConfigError) in config.onBattery = try entry.choice(PowerPolicy.self) },
        "power.on_power_saver": { config, entry throws(ConfigError) in config.onPowerSaver = try entry.choice(PowerPolicy.self) },
        "network.max_download_rate": { config, entry throws(ConfigError) in config.bandwidth.download = try entry.rate() },
        "network.max_upload_rate": { config, entry throws(ConfigError) in config.bandwidth.upload = try entry.rate() },
        "notifications.enabled": { config, entry throws(ConfigError) in config.notificationsEnabled = try entry.bool() },
    ]

    /// Applies a parsed config file over these values. The first key refused (in key order) is the
    /// error, with the line that sets it.
    public mutating func apply(_ file: ConfigFile) throws(ConfigError) {
        for (key, value) in file.values.sorted(by: { $0.key < $1.key }) {
            guard let setter = Self.keys[key] else {
                throw ConfigError(path: file.path, line: file.line(of: key), message: "unknown key '\(key)'; see docs/configuration.md")
            }
            do {
                try setter(&self, ConfigEntry(key: key, value: value, path: file.path))
            } catch var error {
                error.line = error.line ?? file.line(of: key)
                throw error
            }
        }
    }

    /// Applies `SPLASHD_*` environment variables.
    public mutating func apply(environment: [String: String]) throws(ConfigError) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let v = value("SPLASHD_BACKEND_URL") { backendURL = v }
        if let v = value("SPLASHD_ANON_KEY") { anonKey = v }
        if let v = value("SPLASHD_UNSPLASH_API_URL") { unsplashAPIURL = v }
        if let v = value("SPLASHD_UNSPLASH_ACCESS_KEY") { unsplashAccessKey = v }
        if let v = value("SPLASHD_NASA_API_URL") { nasaAPIURL = v }
        if let v = value("SPLASHD_GOOGLE_CLIENT_ID") { googleClientId = v }
        if let v = value("SPLASHD_GOOGLE_CLIENT_SECRET") { googleClientSecret = v }
        if let v = value("SPLASHD_GOOGLE_AUTH_URL") { googleAuthURL = v }
        if let v = value("SPLASHD_GOOGLE_TOKEN_URL") { googleTokenURL = v }
        if let v = value("SPLASHD_GOOGLE_REVOKE_URL") { googleRevokeURL = v }
        if let v = value("SPLASHD_GOOGLE_PICKER_URL") { googlePickerURL = v }
        if let v = value("SPLASHD_LOG_LEVEL") { logLevel = try Self.parseLevel(v, "SPLASHD_LOG_LEVEL") }
        if let v = value("SPLASHD_PLAIN_HTTP_HOSTS") { plainHTTPHosts = Self.hostList(v) }
        if let v = value("SPLASHD_CA_FILE") { caFile = v }
        if let v = value("SPLASHD_WEB_PORT") {
            guard let port = Int(v), (0...65_535).contains(port) else {
                throw ConfigError(path: "SPLASHD_WEB_PORT", line: nil, message: "must be a port from 0 to 65535")
            }
            webPort = port
        }
        if let v = value("SPLASHD_WEB_ROOT") { webRoot = v }
    }

    /// Loads defaults ← file (if any) ← environment.
    public static func load(file: String?, environment: [String: String]) throws(ConfigError) -> DaemonConfig {
        var config = DaemonConfig()
        if let file {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ConfigError(path: file, line: nil, message: "cannot read: \(error.localizedDescription)")
            }
            try config.apply(try ConfigFile(path: file, text: text))
        }
        try config.apply(environment: environment)
        config.picturesFolder = config.picturesFolder.map { folder in
            folder.hasPrefix("~/") ? environment["HOME"].map { $0 + folder.dropFirst() } : folder
        } ?? picturesDirectory(environment: environment).map { $0 + "/Splash" }
        return config
    }

    /// The XDG Pictures folder, as `xdg-user-dir PICTURES` finds it: `XDG_PICTURES_DIR` in
    /// `$XDG_CONFIG_HOME/user-dirs.dirs` (or `~/.config/user-dirs.dirs`), a `"$HOME/…"` or absolute
    /// path; else `~/Pictures`. Nil without a home.
    public static func picturesDirectory(environment: [String: String]) -> String? {
        guard let home = environment["HOME"].flatMap({ $0.hasPrefix("/") ? $0 : nil }) else { return nil }
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        if let text = try? String(contentsOfFile: base + "/user-dirs.dirs", encoding: .utf8),
           let directory = userDir("XDG_PICTURES_DIR", in: text, home: home) {
            return directory
        }
        return home + "/Pictures"
    }

    /// One `NAME="value"` line of a user-dirs.dirs file (shell syntax, as xdg-user-dirs writes it:
    /// the value double-quoted, `$HOME/…` or absolute). The last line naming it wins; `$HOME/` alone
    /// (the home itself) is not a pictures folder of its own, and is taken as no answer.
    static func userDir(_ name: String, in text: String, home: String) -> String? {
        var found: String?
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.hasPrefix("#"), line.hasPrefix(name + "=") else { continue }
            var value = String(line.dropFirst(name.count + 1))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            value = value.replacingOccurrences(of: "\\\"", with: "\"")
            if value.hasPrefix("$HOME/") {
                let rest = value.dropFirst("$HOME/".count)
                found = rest.isEmpty ? nil : home + "/" + rest
            } else if value.hasPrefix("/") {
                found = value
            }
        }
        return found.map { $0.hasSuffix("/") && $0.count > 1 ? String($0.dropLast()) : $0 }
    }

    /// The config file to read when none is named: `$XDG_CONFIG_HOME/splashd/config.toml` (or
    /// `~/.config/...`) if it exists.
    public static func defaultFile(environment: [String: String]) -> String? {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? environment["HOME"].map { $0 + "/.config" }
        guard let base else { return nil }
        let path = base + "/splashd/config.toml"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    static func hostList(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// The HTTP client settings every part of the daemon uses.
    public var httpConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(version: SplashVersion.current)
        configuration.insecureHTTPHosts = Set(plainHTTPHosts)
        configuration.caFile = caFile
        return configuration
    }

    static func parseLevel(_ text: String, _ path: String) throws(ConfigError) -> Logger.Level {
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ConfigError(path: path, line: nil, message: "log level '\(text)' is not one of trace, debug, info, notice, warning, error, critical")
        }
        return level
    }
}
