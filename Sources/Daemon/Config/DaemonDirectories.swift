#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Support
import Shared

/// Where splashd keeps things. Flags win; then systemd's `STATE_DIRECTORY` / `CACHE_DIRECTORY` /
/// `RUNTIME_DIRECTORY`; then XDG; then the XDG defaults under `$HOME`.
///
/// The data directory (the library: liked and edited photos, never evicted) has no systemd variable;
/// it follows XDG in every mode, so running splashd by hand or under the user unit finds the same
/// library. The system template passes `--data-dir` explicitly.
public struct DaemonDirectories: Sendable, Equatable {
    public var state: String
    public var data: String
    public var cache: String
    public var runtime: String
    public var socket: String

    public struct Flags: Sendable {
        public var stateDir, dataDir, cacheDir, socket: String?
        public init(stateDir: String? = nil, dataDir: String? = nil, cacheDir: String? = nil, socket: String? = nil) {
            self.stateDir = stateDir
            self.dataDir = dataDir
            self.cacheDir = cacheDir
            self.socket = socket
        }
    }

    public static func resolve(flags: Flags, environment env: [String: String], uid: UInt32 = getuid()) throws(DirectoryError) -> DaemonDirectories {
        func xdg(_ name: String) -> String? { env[name].flatMap { $0.hasPrefix("/") ? $0 : nil } }
        // $HOME is only needed when neither a flag, systemd nor XDG names a directory.
        func orHome(_ value: String?, _ suffix: String) throws(DirectoryError) -> String {
            if let value { return value }
            guard let home = env["HOME"], home.hasPrefix("/") else { throw DirectoryError.noHome }
            return home + suffix
        }
        let state = try orHome(
            flags.stateDir ?? SocketLocation.firstPath(env["STATE_DIRECTORY"]) ?? xdg("XDG_STATE_HOME").map { $0 + "/splashd" },
            "/.local/state/splashd")
        let data = try orHome(flags.dataDir ?? xdg("XDG_DATA_HOME").map { $0 + "/splashd" }, "/.local/share/splashd")
        let cache = try orHome(
            flags.cacheDir ?? SocketLocation.firstPath(env["CACHE_DIRECTORY"]) ?? xdg("XDG_CACHE_HOME").map { $0 + "/splashd" },
            "/.cache/splashd")
        let socket = SocketLocation.socketPath(flag: flags.socket, environment: env, uid: uid)
        // A socket named explicitly decides the runtime directory too: that is where it lives.
        let runtime = flags.socket != nil ? (socket as NSString).deletingLastPathComponent
            : SocketLocation.runtimeDirectory(environment: env, uid: uid)
        return DaemonDirectories(state: state, data: data, cache: cache, runtime: runtime, socket: socket)
    }

    /// Creates the state, data and cache directories, mode 0700 (a library is private).
    public func create() throws(DirectoryError) {
        for directory in [state, data, cache] {
            do throws(FileError) {
                try DurableFile.makeDirectories(directory)
            } catch {
                throw DirectoryError.cannotCreate(directory, "\(error)")
            }
        }
    }

    public var databasePath: String { state + "/splashd.sqlite" }

    public var asProtocol: Directories {
        Directories(state: state, data: data, cache: cache, runtime: runtime, socket: socket)
    }
}

public enum DirectoryError: Error, CustomStringConvertible, Equatable {
    case noHome
    case cannotCreate(String, String)

    public var description: String {
        switch self {
        case .noHome: "HOME is not set; pass --state-dir, --data-dir and --cache-dir"
        case .cannotCreate(let path, let reason): "cannot create \(path): \(reason)"
        }
    }
}
