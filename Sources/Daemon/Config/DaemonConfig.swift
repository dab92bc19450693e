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

    public init() {}

    /// Every key the config file accepts, with what it sets. Unknown keys are errors (a typo should
    /// not be silently ignored).
    static let keys: [String: @Sendable (inout DaemonConfig, ConfigFile.Value, String) throws(ConfigError) -> Void] = [
        "backend.url": { config, value, path throws(ConfigError) in config.backendURL = try value.string("backend.url", path) },
        "backend.anon_key": { config, value, path throws(ConfigError) in config.anonKey = try value.string("backend.anon_key", path) },
        "backend.anon_key_file": { config, value, path throws(ConfigError) in
            config.anonKey = try readSecret(try value.string("backend.anon_key_file", path), key: "backend.anon_key_file", path)
        },
        "unsplash.api_url": { config, value, path throws(ConfigError) in config.unsplashAPIURL = try value.string("unsplash.api_url", path) },
        "unsplash.access_key": { config, value, path throws(ConfigError) in config.unsplashAccessKey = try value.string("unsplash.access_key", path) },
        "unsplash.access_key_file": { config, value, path throws(ConfigError) in
            config.unsplashAccessKey = try readSecret(try value.string("unsplash.access_key_file", path), key: "unsplash.access_key_file", path)
        },
        "nasa.api_url": { config, value, path throws(ConfigError) in config.nasaAPIURL = try value.string("nasa.api_url", path) },
        "log.level": { config, value, path throws(ConfigError) in config.logLevel = try parseLevel(try value.string("log.level", path), path) },
        "control.max_line_bytes": { config, value, path throws(ConfigError) in
            config.maximumLineBytes = try value.integer("control.max_line_bytes", in: 1024...(64 << 20), path)
        },
        "control.max_connections": { config, value, path throws(ConfigError) in
            config.maximumConnections = try value.integer("control.max_connections", in: 1...100_000, path)
        },
        "control.event_queue": { config, value, path throws(ConfigError) in
            config.eventQueueCapacity = try value.integer("control.event_queue", in: 1...1_000_000, path)
        },
        "network.plain_http_hosts": { config, value, path throws(ConfigError) in
            config.plainHTTPHosts = try value.hosts("network.plain_http_hosts", path)
        },
        "sync.pull_interval_seconds": { config, value, path throws(ConfigError) in
            config.pullIntervalSeconds = try value.integer("sync.pull_interval_seconds", in: 10...86_400, path)
        },
        "sync.pull_interval_live_seconds": { config, value, path throws(ConfigError) in
            config.pullIntervalLiveSeconds = try value.integer("sync.pull_interval_live_seconds", in: 60...86_400, path)
        },
        "realtime.enabled": { config, value, path throws(ConfigError) in config.realtimeEnabled = try value.bool("realtime.enabled", path) },
        "realtime.heartbeat_seconds": { config, value, path throws(ConfigError) in
            config.realtimeHeartbeatSeconds = try value.integer("realtime.heartbeat_seconds", in: 1...60, path)
        },
        "realtime.reply_timeout_seconds": { config, value, path throws(ConfigError) in
            config.realtimeReplySeconds = try value.integer("realtime.reply_timeout_seconds", in: 1...60, path)
        },
        "realtime.join_timeout_seconds": { config, value, path throws(ConfigError) in
            config.realtimeJoinSeconds = try value.integer("realtime.join_timeout_seconds", in: 1...120, path)
        },
        "network.ca_file": { config, value, path throws(ConfigError) in config.caFile = try value.string("network.ca_file", path) },
        "control.idle_timeout_seconds": { config, value, path throws(ConfigError) in
            config.idleTimeoutSeconds = try value.integer("control.idle_timeout_seconds", in: 1...86_400, path)
        },
        "pictures.memory_mib": { config, value, path throws(ConfigError) in
            config.picturesMemoryMiB = try value.integer("pictures.memory_mib", in: 0...4096, path)
        },
        "pictures.folder": { config, value, path throws(ConfigError) in
            let folder = try value.string("pictures.folder", path)
            guard folder.hasPrefix("/") || folder.hasPrefix("~/"), !folder.contains("\0") else {
                throw ConfigError(path: path, line: nil, message: "pictures.folder must be an absolute path or start with ~/")
            }
            config.picturesFolder = folder
        },
        "google.client_id": { config, value, path throws(ConfigError) in config.googleClientId = try value.string("google.client_id", path) },
        "google.client_secret": { config, value, path throws(ConfigError) in
            config.googleClientSecret = try value.string("google.client_secret", path)
        },
        "google.client_secret_file": { config, value, path throws(ConfigError) in
            config.googleClientSecret = try readSecret(try value.string("google.client_secret_file", path), key: "google.client_secret_file", path)
        },
        "google.auth_url": { config, value, path throws(ConfigError) in config.googleAuthURL = try value.string("google.auth_url", path) },
        "google.token_url": { config, value, path throws(ConfigError) in config.googleTokenURL = try value.string("google.token_url", path) },
        "google.revoke_url": { config, value, path throws(ConfigError) in config.googleRevokeURL = try value.string("google.revoke_url", path) },
        "google.picker_url": { config, value, path throws(ConfigError) in config.googlePickerURL = try value.string("google.picker_url", path) },
        "google.picker_page_size": { config, value, path throws(ConfigError) in
            config.googlePickerPageSize = try value.integer("google.picker_page_size", in: 1...100, path)
        },
        "pictures.terminal": { config, value, path throws(ConfigError) in
            let choice = try value.string("pictures.terminal", path)
            let choices = ["auto", "none"] + TerminalSpec.Mode.allCases.map(\.rawValue)
            guard choices.contains(choice) else {
                throw ConfigError(path: path, line: nil, message: "pictures.terminal must be one of \(choices.joined(separator: ", "))")
            }
            config.picturesTerminal = choice
        },
        "pictures.export": { config, value, path throws(ConfigError) in config.picturesExport = try value.bool("pictures.export", path) },
        "cache.max_bytes": { config, value, path throws(ConfigError) in
            config.cacheMaxBytes = Int64(try value.integer("cache.max_bytes", in: 0...(1 << 50), path))
        },
        "images.concurrency": { config, value, path throws(ConfigError) in
            config.imagesConcurrency = try value.integer("images.concurrency", in: 1...64, path)
        },
        "images.variant": { config, value, path throws(ConfigError) in
            let variant = try value.string("images.variant", path)
            guard ["raw", "full", "regular", "small", "thumb", "orig", "large", "medium"].contains(variant) else {
                throw ConfigError(path: path, line: nil, message: "images.variant must be one of raw, full, regular, small, thumb, orig, large, medium")
            }
            config.imagesVariant = variant
        },
        "images.max_megapixels": { config, value, path throws(ConfigError) in
            config.imagesMaxMegapixels = try value.integer("images.max_megapixels", in: 1...1000, path)
        },
        "images.max_file_mb": { config, value, path throws(ConfigError) in
            config.imagesMaxFileMiB = try value.integer("images.max_file_mb", in: 1...4096, path)
        },
        "originals.max_mib": { config, value, path throws(ConfigError) in
            config.originalsMaxMiB = try value.integer("originals.max_mib", in: 1...200, path)
        },
        "search.fresh_seconds": { config, value, path throws(ConfigError) in
            config.searchFreshSeconds = try value.integer("search.fresh_seconds", in: 0...86_400, path)
        },
        "import.duplicate_threshold": { config, value, path throws(ConfigError) in
            config.duplicateThreshold = try value.integer("import.duplicate_threshold", in: 0...32, path)
        },
        "import.duplicate_check_seconds": { config, value, path throws(ConfigError) in
            config.duplicateCheckSeconds = try value.integer("import.duplicate_check_seconds", in: 0...3600, path)
        },
        "edits.jpeg_quality": { config, value, path throws(ConfigError) in
            config.editsJPEGQuality = try value.integer("edits.jpeg_quality", in: 1...100, path)
        },
    ]

    /// Applies a parsed config file over these values. The first key refused (in key order) is the
    /// error, with the line that sets it.
    public mutating func apply(_ file: ConfigFile) throws(ConfigError) {
        for (key, value) in file.values.sorted(by: { $0.key < $1.key }) {
            guard let setter = Self.keys[key] else {
                throw ConfigError(path: file.path, line: file.line(of: key), message: "unknown key '\(key)'; see docs/configuration.md")
            }
            do {
                try setter(&self, value, file.path)
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

    static func readSecret(_ file: String, key: String, _ path: String) throws(ConfigError) -> String {
        do {
            return try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            throw ConfigError(path: path, line: nil, message: "\(key): cannot read \(file): \(error.localizedDescription)")
        }
    }
}

extension ConfigFile.Value {
    func string(_ key: String, _ path: String) throws(ConfigError) -> String {
        guard case .string(let value) = self else { throw ConfigError(path: path, line: nil, message: "\(key) must be a string") }
        return value
    }

    /// Hosts as a TOML array of strings, or as one comma-separated string (the environment variable's form).
    func hosts(_ key: String, _ path: String) throws(ConfigError) -> [String] {
        switch self {
        case .string(let list):
            return DaemonConfig.hostList(list)
        case .array(let items):
            var hosts: [String] = []
            for item in items {
                guard case .string(let host) = item else { throw ConfigError(path: path, line: nil, message: "\(key) must be an array of strings") }
                hosts += DaemonConfig.hostList(host)
            }
            return hosts
        default:
            throw ConfigError(path: path, line: nil, message: "\(key) must be an array of strings")
        }
    }

    func bool(_ key: String, _ path: String) throws(ConfigError) -> Bool {
        guard case .bool(let value) = self else { throw ConfigError(path: path, line: nil, message: "\(key) must be true or false") }
        return value
    }

    func integer(_ key: String, in range: ClosedRange<Int>, _ path: String) throws(ConfigError) -> Int {
        guard case .integer(let value) = self, let int = Int(exactly: value), range.contains(int) else {
            throw ConfigError(path: path, line: nil, message: "\(key) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return int
    }
}
