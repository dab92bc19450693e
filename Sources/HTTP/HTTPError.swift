/// Every failure the client reports. None of these carry request headers or bodies: they may hold tokens.
public enum HTTPError: Error, Sendable, Equatable {
    /// A libcurl failure that is neither a timeout nor TLS (DNS, refused connection, reset, truncated body).
    case network(curlCode: Int32, message: String)
    /// The whole-request deadline passed, the connection did not open in time, or the transfer stalled
    /// below the low-speed limit.
    case timeout
    /// Certificate verification or the TLS handshake failed.
    case tls(curlCode: Int32, message: String)
    /// A non-2xx response, thrown only where the caller asked for it (`requireSuccess`, downloads).
    case http(status: Int, headers: HTTPHeaders, body: [UInt8])
    /// The (decoded) body exceeded `limit` bytes; the transfer was aborted.
    case tooLarge(limit: Int)
    /// Plain http:// to a host that is neither loopback nor allow-listed; refused before any I/O.
    case insecureURL(host: String)
    case cancelled
    /// Not an absolute http(s) URL.
    case invalidURL
    /// A request header name or value holds CR, LF or NUL (header injection); only the name is reported.
    case invalidHeader(name: String)
    /// More redirects than the configuration allows (or a redirect without a usable Location).
    case tooManyRedirects
    /// A download finished with a different size than expected (the partial file is removed), or a
    /// file being sent ended before the size it had when the request began.
    case sizeMismatch(expected: Int64, actual: Int64)
    /// A download's SHA-256 did not match. The partial file is removed.
    case checksumMismatch
    /// A local file operation failed during a download or while sending a file (errno).
    case file(errno: Int32, path: String)
    /// The client was shut down.
    case shutdown
}
