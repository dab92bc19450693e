import Connectivity
import Foundation
import Store

/// Each image host on its own (`health`): a host that does not answer waits while the others go on.
extension ImageQueue {
    /// Whether a job's host answers.
    func usable(_ job: PhotoFileStore.Missing, variant: String) -> Bool {
        host(of: job, variant: variant).map(health.usable) ?? true
    }

    /// The host a job's file comes from, with its port when the URL names one (two services on one
    /// machine are two hosts).
    func host(of job: PhotoFileStore.Missing, variant: String) -> String? {
        configuration.renditionURL(job.urls, variant).flatMap(Self.host(of:))
    }

    /// The name `ServiceHealth` knows a file's host by: host, or host:port.
    public static func host(of url: String) -> String? {
        guard let url = URL(string: url), let host = url.host else { return nil }
        return url.port.map { "\(host):\($0)" } ?? host
    }

    /// What a transfer says about its host: not reached at all is the host down; any answer, even a
    /// reset, a body cut short or an HTTP error, is a host that is there (the file's own retries deal
    /// with those); a failure here (a full disk) says nothing about it.
    func report(_ outcome: Result<Void, ImageFailure>, host: String) {
        switch outcome {
        case .success:
            health.succeeded(host)
        case .failure(let failure):
            if failure.hostUnreachable {
                health.failed(host, reason: failure.message)
            } else if failure.status != nil || failure.network {
                health.succeeded(host)
            }
        }
    }
}
