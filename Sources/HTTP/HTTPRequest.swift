/// One HTTP request. Headers are kept as given (order and duplicates preserved); libcurl adds Host,
/// Accept-Encoding and User-Agent itself.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: RequestBody?
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
        self.body = body.map(RequestBody.bytes)
        self.timeout = timeout
        self.followRedirects = followRedirects
    }

    /// A request that sends a file's contents, read as they go out.
    public init(method: String, url: String, headers: [(String, String)] = [], uploading path: String, timeout: Duration? = nil) {
        self.init(method: method, url: url, headers: headers, timeout: timeout)
        body = .file(path: path)
    }
}
