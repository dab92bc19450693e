import Foundation
import SplashClient
import TestSupport

/// A real splashd pointed at the devstack instance's Unsplash and NASA stand-ins. Keep the returned
/// directory alive for as long as the daemon runs: it lives in it.
func startSourceDaemon(_ devstack: Devstack) async throws -> (DaemonProcess, SplashClient, TemporaryDirectory) {
    let dir = TemporaryDirectory()
    var environment = devstack.daemonEnvironment
    for key in ["SPLASHD_UNSPLASH_API_URL", "SPLASHD_UNSPLASH_ACCESS_KEY", "SPLASHD_NASA_API_URL"] { environment[key] = devstack.env[key] }
    let process = try DaemonProcess(directory: dir.path, environment: environment, withNotifySocket: false)
    return (process, try await process.waitUntilListening(), dir)
}
