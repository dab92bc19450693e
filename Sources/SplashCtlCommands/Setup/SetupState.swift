#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Support

/// Files `splashctl setup` writes, and whether it has run (so `status` stops suggesting it).
enum SetupState {
    static func configDirectory(environment: [String: String]) -> String {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return base + "/splashd"
    }

    static func marker(directory: String) -> String { directory + "/.setup-done" }

    static func isDone(environment: [String: String]) -> Bool {
        access(marker(directory: configDirectory(environment: environment)), F_OK) == 0
    }

    static func markDone(directory: String) throws {
        try write("done \(ISO8601DateFormatter().string(from: Date()))\n", to: marker(directory: directory))
    }

    struct Written {
        var config: String
        var backup: String?
    }

    /// The keys in their own 0600 files, and a config naming them. Strings are written as TOML basic
    /// strings with `\` and `"` escaped.
    static func write(directory: String, backendURL: String, anonKey: String, unsplashKey: String?) throws -> Written {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try write(anonKey + "\n", to: directory + "/anon_key")
        if let unsplashKey { try write(unsplashKey + "\n", to: directory + "/unsplash_key") }
        var lines = [
            "# Written by splashctl setup. Every key, with its default: docs/configuration.md",
            "# (or `man splashd`). Secrets live in the files named here, mode 0600.",
            "",
            "[backend]",
            "url = \(quoted(backendURL))",
            "anon_key_file = \(quoted(directory + "/anon_key"))",
        ]
        if unsplashKey != nil {
            lines += ["", "[unsplash]", "access_key_file = \(quoted(directory + "/unsplash_key"))"]
        }
        let config = directory + "/config.toml"
        var backup: String?
        if access(config, F_OK) == 0 {
            backup = config + ".bak"
            _ = rename(config, backup!)
        }
        try write(lines.joined(separator: "\n") + "\n", to: config)
        return Written(config: config, backup: backup)
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Written to a temporary name with mode 0600 from the start (never briefly readable by others),
    /// flushed, then renamed into place.
    static func write(_ text: String, to path: String) throws {
        try DurableFile.replace(path, with: Array(text.utf8), mode: 0o600)
    }
}
