/// A complete response held in memory. Non-2xx statuses are returned, not thrown: callers decide what a 404
/// or a 429 means (see `HTTPResponse.requireSuccess()` for the throwing convenience).
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The URL of the last hop after redirects.
    public var effectiveURL: String
    /// "1.1", "2" or "3" (as negotiated), "" if unknown.
    public var httpVersion: String

    public init(status: Int, headers: HTTPHeaders, body: [UInt8], effectiveURL: String, httpVersion: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.effectiveURL = effectiveURL
        self.httpVersion = httpVersion
    }

    public var isSuccess: Bool { (200..<300).contains(status) }

    /// Returns self for a 2xx status, otherwise throws `HTTPError.http` carrying status, headers and body.
    @discardableResult
    public func requireSuccess() throws(HTTPError) -> HTTPResponse {
        guard isSuccess else { throw .http(status: status, headers: headers, body: body) }
        return self
    }
}
