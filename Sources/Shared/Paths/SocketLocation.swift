/// Where the control socket lives, decided the same way by splashd and splashctl so that neither needs
/// to be told: `--socket`, else `SPLASHD_SOCKET`, else `<runtime dir>/control.sock`.
public enum SocketLocation {
    public static let fileName = "control.sock"

    /// The runtime directory: `RUNTIME_DIRECTORY` (systemd, already ends in `splashd`), else
    /// `$XDG_RUNTIME_DIR/splashd`, else `/tmp/splashd-<uid>` (a private 0700 directory).
    public static func runtimeDirectory(environment: [String: String], uid: UInt32) -> String {
        if let dir = firstPath(environment["RUNTIME_DIRECTORY"]) { return dir }
        if let dir = environment["XDG_RUNTIME_DIR"], dir.hasPrefix("/") { return dir + "/splashd" }
        return "/tmp/splashd-\(uid)"
    }

    public static func socketPath(flag: String?, environment: [String: String], uid: UInt32) -> String {
        if let flag, !flag.isEmpty { return flag }
        if let env = environment["SPLASHD_SOCKET"], !env.isEmpty { return env }
        return runtimeDirectory(environment: environment, uid: uid) + "/" + fileName
    }

    /// systemd passes several directories colon-separated when a unit lists several; the first is ours.
    public static func firstPath(_ value: String?) -> String? {
        guard let value, let first = value.split(separator: ":").first, first.hasPrefix("/") else { return nil }
        return String(first)
    }
}
