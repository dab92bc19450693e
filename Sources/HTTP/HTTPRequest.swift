/// One HTTP request. Headers are kept as given (order and duplicates preserved); libcurl adds Host,
/// Accept-Encoding and User-Agent itself.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]?
    /// Whole-transfer deadline; nil uses the client's default (which may be none: stalls are then caught by the
    /// low-speed limit instead).
    public var timeout: Duration?
    /// Redirects are followed only when asked, and every hop passes the same URL policy as the first request.
    public var followRedirects: Bool

    public init(
        method: String = "GET", url: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: Duration? = nil, followRedirects: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.followRedirects = followRedirects
    }
}
