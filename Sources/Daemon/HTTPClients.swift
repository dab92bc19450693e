import HTTP
import Logging
import Synchronization

/// Where the daemon's parts get their HTTP clients (each one curl multi handle, with its thread): the
/// graph keeps every client it made, so that a graph built and never run — a test's — closes them all.
/// A running daemon's services close their own as they stop; closing twice is harmless.
///
/// Every client shares `bandwidth`: the config's rates hold over all of the daemon's transfers together.
final class HTTPClients: Sendable {
    private let made = Mutex<[HTTPClient]>([])
    let bandwidth = BandwidthLimits()

    func client(_ configuration: HTTPClient.Configuration, label: String) throws(HTTPError) -> HTTPClient {
        var configuration = configuration
        configuration.bandwidth = bandwidth
        let client = try HTTPClient(configuration: configuration, logger: Logger(label: label))
        made.withLock { $0.append(client) }
        return client
    }

    func shutdownAll() {
        for client in made.withLock({ $0 }) { client.shutdown() }
    }
}
