import CCurl
import Logging

/// An HTTP client over one libcurl multi handle: connections (and HTTP/2 streams) are shared by every request
/// made through the same client, so make one per process and share it.
///
/// Proxies: libcurl itself reads `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy`; nothing here touches them.
public final class HTTPClient: Sendable {
    public let configuration: Configuration
    let engine: TransferEngine
    private let policy: URLPolicy
    private let logger: Logger

    public init(configuration: Configuration, logger: Logger = Logger(label: "splashd.http")) throws(HTTPError) {
        guard let multi = CurlMultiHandle() else {
            throw .network(curlCode: Int32(CURLE_FAILED_INIT.rawValue), message: "libcurl failed to initialise")
        }
        multi.set(CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        multi.set(CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maxConnectionsPerHost))
        multi.set(CURLMOPT_MAX_TOTAL_CONNECTIONS, max(1, configuration.maxTotalConnections))
        // Keep enough idle connections cached to serve the total limit without reconnecting.
        multi.set(CURLMOPT_MAXCONNECTS, max(1, configuration.maxTotalConnections))
        self.configuration = configuration
        self.engine = TransferEngine(
            multi: multi, stallLimit: max(.seconds(1), configuration.lowSpeedTime), bandwidth: configuration.bandwidth
        ) { [logger] overdue in
            logger.warning("http: \(overdue)", metadata: ["splashd_op": "http"])
        }
        self.policy = URLPolicy(insecureHTTPHosts: Set(configuration.insecureHTTPHosts.map { $0.lowercased() }))
        self.logger = logger
    }

    deinit { engine.shutdown() }

    /// Fails every request in flight with `.shutdown` and refuses new ones. Idempotent.
    public func shutdown() { engine.shutdown() }

    /// Sends a request and returns the response whatever its status (see `HTTPResponse.requireSuccess`).
    /// Follows redirects only if `request.followRedirects`; the body is held in memory up to
    /// `configuration.maxResponseBytes`.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let outcome = try await followingRedirects(request) { hop throws(HTTPError) in
            try await self.perform(hop, sink: .memory(limit: self.configuration.maxResponseBytes))
        }
        return HTTPResponse(
            status: outcome.status, headers: outcome.headers, body: outcome.body,
            effectiveURL: outcome.effectiveURL, httpVersion: outcome.httpVersion)
    }

    /// Runs `hop` for the request and, when asked, for each redirect target. Redirects are followed here rather
    /// than by libcurl so that every hop passes the URL policy (no redirect to plain http on a public host)
    /// and credentials are dropped when the origin changes.
    func followingRedirects(
        _ request: HTTPRequest, _ hop: (HTTPRequest) async throws(HTTPError) -> TransferOutcome
    ) async throws(HTTPError) -> TransferOutcome {
        var current = request
        var redirects = 0
        while true {
            let target = try policy.check(current.url)
            let started = ContinuousClock.now
            let outcome = try await hop(current)
            logger.debug("http", metadata: [
                "method": "\(current.method)", "host": "\(target.host)", "status": "\(outcome.status)",
                "ms": "\((ContinuousClock.now - started).curlMilliseconds)",
            ])
            guard current.followRedirects, [301, 302, 303, 307, 308].contains(outcome.status) else { return outcome }
            guard redirects < configuration.maxRedirects, let location = outcome.redirectURL else {
                throw .tooManyRedirects
            }
            redirects += 1
            current = Self.redirected(current, to: location, status: outcome.status, from: target)
        }
    }

    /// The request for the next hop, following what browsers and libcurl do: 303 (and 301/302 after a POST)
    /// become a GET without body; Authorization and Cookie never travel to another origin (scheme, host, port).
    static func redirected(_ request: HTTPRequest, to location: String, status: Int, from origin: URLPolicy.Target) -> HTTPRequest {
        var next = request
        next.url = location
        if status == 303 || (request.method == "POST" && (status == 301 || status == 302)) {
            next.method = request.method == "HEAD" ? "HEAD" : "GET"
            next.body = nil
            next.headers.removeAll { ["content-type", "content-length"].contains($0.0.lowercased()) }
        }
        if URLPolicy.parse(location) != origin {
            next.headers.removeAll { ["authorization", "cookie", "proxy-authorization"].contains($0.0.lowercased()) }
        }
        return next
    }

    /// Runs one transfer on the engine thread and waits for it; cancelling the task removes it from libcurl.
    func perform(_ request: HTTPRequest, sink: Transfer.Sink, range: Int64? = nil) async throws(HTTPError) -> TransferOutcome {
        if Task.isCancelled { throw .cancelled }
        let transfer = try makeTransfer(request, sink: sink, range: range)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.start(continuation)
                if !engine.submit(transfer) { transfer.complete(.failure(.shutdown)) }
            }
        } onCancel: {
            engine.cancel(transfer)
        }
        return try result.get()
    }

    private func makeTransfer(_ request: HTTPRequest, sink: Transfer.Sink, range: Int64?) throws(HTTPError) -> Transfer {
        guard let easy = CurlEasyHandle() else {
            throw .network(curlCode: Int32(CURLE_FAILED_INIT.rawValue), message: "curl_easy_init failed")
        }
        let config = configuration
        guard easy.set(CURLOPT_URL, request.url) == CURLE_OK else { throw .invalidURL }
        // Belt and braces with URLPolicy: libcurl itself will speak nothing but http and https.
        easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_FOLLOWLOCATION, 0)
        // Signals cannot be used for DNS timeouts in a multi-threaded process.
        easy.set(CURLOPT_NOSIGNAL, 1)
        easy.set(CURLOPT_USERAGENT, "splashd/\(config.version)")
        easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Over TLS, let libcurl wait for an existing HTTP/2 connection rather than open a second one to the
        // same host. Not over cleartext, where 2TLS means HTTP/1.1 and nothing can be multiplexed: libcurl
        // 7.88 still waits there for the first connection's answer to learn that, so every request queued
        // behind a slow one, and after a network cut a request could wait for an answer that never came
        // until its own timeout (an edit's upload two minutes; seen in the chaos converge part).
        if request.url.lowercased().hasPrefix("https:") { easy.set(CURLOPT_PIPEWAIT, 1) }
        easy.set(CURLOPT_SSL_VERIFYPEER, 1)
        easy.set(CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = config.caFile { easy.set(CURLOPT_CAINFO, caFile) }
        easy.set(CURLOPT_CONNECTTIMEOUT_MS, config.connectTimeout.curlMilliseconds)
        if config.freshConnections {
            easy.set(CURLOPT_FRESH_CONNECT, 1)
            easy.set(CURLOPT_FORBID_REUSE, 1)
        }
        let timeout = request.timeout ?? config.requestTimeout
        let timedByEngine = config.bandwidth.map { $0.current != BandwidthLimits.Rates() } ?? false
        if let timeout, !timedByEngine { easy.set(CURLOPT_TIMEOUT_MS, timeout.curlMilliseconds) }
        easy.set(CURLOPT_LOW_SPEED_LIMIT, max(1, config.lowSpeedLimit))
        easy.set(CURLOPT_LOW_SPEED_TIME, max(1, (config.lowSpeedTime.curlMilliseconds + 999) / 1000))
        // Proxy CONNECT responses would otherwise reach the header callback as if they were the response.
        easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        if let range {
            // A plain Range header rather than CURLOPT_RESUME_FROM_LARGE: with the latter libcurl fails a 200
            // reply (server ignoring ranges) with CURLE_RANGE_ERROR, where we want to restart in the same request.
            easy.set(CURLOPT_RANGE, "\(range)-")
        } else if case .memory = sink {
            // "" offers every encoding this libcurl decodes (gzip, deflate, br). Not for downloads: a resumed
            // range must count bytes of the stored representation, not of a decoded stream.
            easy.set(CURLOPT_ACCEPT_ENCODING, "")
        }
        let body = try BodySource(request.body)
        switch (request.method.uppercased(), request.body) {
        case ("GET", nil): easy.set(CURLOPT_HTTPGET, 1)
        case ("HEAD", nil): easy.set(CURLOPT_NOBODY, 1)
        case ("POST", _): easy.setBody(count: body.count)
        case (let method, let given):
            if given != nil { easy.setBody(count: body.count) }
            easy.set(CURLOPT_CUSTOMREQUEST, method)
        }
        for (name, value) in request.headers where name.isEmpty || (name + value).contains(where: { "\r\n\0".contains($0) }) {
            throw .invalidHeader(name: name)
        }
        var lines = request.headers.map { name, value in value.isEmpty ? "\(name);" : "\(name): \(value)" }
        let named = Set(request.headers.map { $0.0.lowercased() })
        // libcurl would send "Expect: 100-continue" for larger bodies and wait a round trip for the go-ahead.
        if !named.contains("expect") { lines.append("Expect:") }
        // libcurl labels every body it sends as a form (application/x-www-form-urlencoded) unless told otherwise;
        // a body without a caller-given type goes unlabelled instead.
        if request.body != nil && !named.contains("content-type") { lines.append("Content-Type:") }
        let headerList = CurlHeaderList(lines)
        easy.set(CURLOPT_HTTPHEADER, list: headerList)
        return Transfer(easy: easy, headerList: headerList, sink: sink, requestBody: body, timeout: timeout, timedByEngine: timedByEngine)
    }
}
