extension HTTPClient {
    /// Client-wide settings. Proxies are not configured here: libcurl reads `http_proxy`, `https_proxy`,
    /// `all_proxy` and `no_proxy` from the environment itself.
    public struct Configuration: Sendable {
        /// Sent as `User-Agent: splashd/<version>`.
        public var version: String
        /// PEM bundle of trusted CAs; nil uses the system store. Verification itself can never be turned off.
        public var caFile: String?
        public var connectTimeout: Duration
        /// Default whole-request deadline for requests that set none; nil means no deadline (the low-speed
        /// limit still aborts a stalled transfer).
        public var requestTimeout: Duration?
        /// A transfer slower than `lowSpeedLimit` bytes/s for `lowSpeedTime` is aborted with `.timeout`.
        public var lowSpeedLimit: Int
        /// Whole seconds (libcurl's granularity); rounded up, at least 1 s.
        public var lowSpeedTime: Duration
        /// Connections per host (HTTP/1.1 concurrency per host; HTTP/2 multiplexes streams over them).
        public var maxConnectionsPerHost: Int
        /// Connections in total; transfers beyond either limit wait in libcurl's queue.
        public var maxTotalConnections: Int
        public var maxRedirects: Int
        /// Largest in-memory response body, checked on decoded bytes (so gzip bombs are caught too).
        public var maxResponseBytes: Int
        /// Hosts (lower-case names or literal addresses) that may be reached over plain http:// besides loopback.
        public var insecureHTTPHosts: Set<String>
        /// Open a new connection for every request. For probes: a kept-alive connection that died with
        /// the old network would only fail at the request timeout, where a fresh connect fails at once.
        public var freshConnections = false
        /// Rates every transfer of every client sharing it keeps under together; nil: none.
        public var bandwidth: BandwidthLimits?

        public init(
            version: String,
            caFile: String? = nil,
            connectTimeout: Duration = .seconds(10),
            requestTimeout: Duration? = nil,
            lowSpeedLimit: Int = 1,
            lowSpeedTime: Duration = .seconds(30),
            maxConnectionsPerHost: Int = 6,
            maxTotalConnections: Int = 32,
            maxRedirects: Int = 5,
            maxResponseBytes: Int = 32 << 20,
            insecureHTTPHosts: Set<String> = []
        ) {
            self.version = version
            self.caFile = caFile
            self.connectTimeout = connectTimeout
            self.requestTimeout = requestTimeout
            self.lowSpeedLimit = lowSpeedLimit
            self.lowSpeedTime = lowSpeedTime
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxTotalConnections = maxTotalConnections
            self.maxRedirects = maxRedirects
            self.maxResponseBytes = maxResponseBytes
            self.insecureHTTPHosts = insecureHTTPHosts
        }
    }
}

extension Duration {
    /// Milliseconds, rounded up so that a tiny positive duration never becomes 0 ("no limit" to libcurl).
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(max(1, ms))
    }
}
