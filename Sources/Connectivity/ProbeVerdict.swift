import HTTP
import Shared
import Support

/// What one probe of the backend's health endpoint found, before it is compared with the previous state.
public enum ProbeOutcome: Sendable, Equatable {
    /// The server answered with this HTTP status.
    case answered(status: Int)
    /// The request failed before any answer.
    case failed(HTTPError)
}

/// The state and the reason a person reads in `splashctl status`.
public struct ProbeVerdict: Sendable, Equatable {
    public var state: ConnectivityStatus.State
    public var text: DaemonText

    public init(_ state: ConnectivityStatus.State, _ text: DaemonText) {
        self.state = state
        self.text = text
    }

    /// The reason in English.
    public var reason: String { text.english }

    /// Classifies a probe. Returns nil when the probe says nothing about the network (cancelled, client shut down).
    ///
    /// - 2xx: online.
    /// - No answer (network error, timeout, TLS failure): offline, with libcurl's message. A TLS failure counts as
    ///   offline because the usual cause is a captive portal or an intercepting middlebox: we do not reach the backend.
    /// - 5xx, 429 and any other unexpected status: degraded, "backend answered 503": the server is there but errs.
    /// - 401/403: degraded too, with a reason naming the API key. Decision: the network is fine, but every request
    ///   would be refused, so `online` would send the sync engine into a storm of failures that look like rejected
    ///   changes; `degraded` keeps work queued (nothing is lost), keeps re-probing with backoff, and tells the person
    ///   what to fix. (Supabase's gateway answers /auth/v1/health with 401 when the apikey is missing or wrong.)
    /// - A URL the HTTP policy refuses (plain http to a public host, malformed): offline, reason says so; it is a
    ///   configuration error that no network change will fix, but no request can succeed either.
    public static func classify(_ outcome: ProbeOutcome, timeout: Duration) -> ProbeVerdict? {
        switch outcome {
        case .answered(let status) where (200..<300).contains(status):
            return ProbeVerdict(.online, .backendAnswers)
        case .answered(let status) where status == 401 || status == 403:
            return ProbeVerdict(.degraded, .backendRefusesApiKey(status: status))
        case .answered(let status) where status == 429:
            return ProbeVerdict(.degraded, .backendRateLimited)
        case .answered(let status):
            return ProbeVerdict(.degraded, .backendAnsweredStatus(status: status))
        case .failed(let error):
            switch error {
            case .network(_, let message):
                return ProbeVerdict(.offline, .backendUnreachable(detail: stable(message)))
            case .timeout:
                return ProbeVerdict(.offline, .backendSilent(seconds: timeout.timeInterval))
            case .tls(_, let message):
                return ProbeVerdict(.offline, .backendTlsFailed(detail: stable(message)))
            case .insecureURL(let host):
                return ProbeVerdict(.offline, .healthUrlPlainHttp(host: host))
            case .invalidURL:
                return ProbeVerdict(.offline, .healthUrlInvalid)
            case .invalidHeader:
                return ProbeVerdict(.offline, .apiKeyBadCharacters)
            case .tooManyRedirects:
                return ProbeVerdict(.degraded, .backendRedirected)
            case .tooLarge:
                return ProbeVerdict(.degraded, .backendOversized)
            case .http(let status, _, _):
                return ProbeVerdict(.degraded, .backendAnsweredStatus(status: status))
            case .sizeMismatch, .checksumMismatch, .file:
                return ProbeVerdict(.degraded, .backendUnexpected)
            case .cancelled, .shutdown:
                return nil
            }
        }
    }

    /// libcurl's detailed messages carry timings ("Failed to connect to h port 443 after 12 ms: ..."); without
    /// them, two probes failing the same way give the same reason and raise no change event.
    static func stable(_ message: String) -> String {
        message.replacing(#/ after \d+ (ms|milliseconds)/#, with: "")
    }
}
