import TestSupport

extension Splashd.Options {
    /// The account tests' daemon: debug logs (their assertions read them), a notify socket, no account
    /// yet. `backend: false` leaves the backend unset.
    static func accountTests(directory: String? = nil, backend: Bool = true, environment: [String: String] = [:], notify: Bool = true) -> Self {
        Self(directory: directory, backend: backend, arguments: ["--log-level", "debug"], environment: environment, notify: notify)
    }
}
