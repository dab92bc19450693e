import Foundation
import HTTP
import Support

/// Where the Supabase project is and how every request to it is dressed: `apikey`, the bearer (the
/// user's access token, else the anon key), the API version header that selects Auth's newer error
/// shape. Knows nothing about sessions; `SessionManager.authorized` adds the user's token.
public struct SupabaseBackend: Sendable {
    public let http: HTTPClient
    public let baseURL: String
    public let anonKey: String
    /// Every call is bounded: a control request waiting on the network must not hang.
    public var timeout: Duration = .seconds(15)
    /// Learns the server's time from the `Date` of every answer, errors included.
    public let clock: ServerClock?

    public init(http: HTTPClient, baseURL: String, anonKey: String, clock: ServerClock? = nil) {
        self.http = http
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.anonKey = anonKey
        self.clock = clock
    }

    /// Sends one request and returns the 2xx response; anything else is thrown as `BackendError`.
    /// `uploading` sends a file's contents as the body, read as they go out (a caller gives its type).
    public func send(
        _ method: String, _ path: String, query: [(String, String)] = [], body: [UInt8]? = nil, uploading file: String? = nil,
        bearer: String? = nil, headers extra: [(String, String)] = [], timeout: Duration? = nil
    ) async throws(BackendError) -> HTTPResponse {
        var url = baseURL + path
        if !query.isEmpty {
            url += "?" + query.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        }
        var headers: [(String, String)] = [
            ("apikey", anonKey),
            ("Authorization", "Bearer \(bearer ?? anonKey)"),
            ("X-Supabase-Api-Version", "2024-01-01"),
            ("Accept", "application/json"),
        ]
        if body != nil, !extra.contains(where: { $0.0.lowercased() == "content-type" }) {
            headers.append(("Content-Type", "application/json"))
        }
        headers += extra
        let response: HTTPResponse
        let sentAt = clock?.device.boot()
        do {
            var request = HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: timeout ?? self.timeout)
            if let file { request.body = .file(path: file) }
            response = try await http.send(request)
        } catch {
            throw .network(error)
        }
        if let clock, let sentAt, let second = response.headers.dateSeconds {
            clock.observe(serverSecond: second, sentAt: sentAt, receivedAt: clock.device.boot())
        }
        guard response.isSuccess else {
            throw .server(SupabaseError(status: response.status, headers: response.headers, body: response.body))
        }
        return response
    }

    /// Decodes a 2xx body, turning a body that is not what the API promises into `.malformed`.
    public static func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse) throws(BackendError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            let preview = String(decoding: response.body.prefix(80), as: UTF8.self)
            throw .malformed(status: response.status, detail: "expected \(type) but got '\(preview)'")
        }
    }

    public static func json<T: Encodable>(_ value: T) -> [UInt8] {
        // Plain strings and dictionaries of them cannot fail to encode.
        (try? JSONEncoder().encode(value)).map(Array.init) ?? Array("{}".utf8)
    }

    /// Percent-encodes a query component (PostgREST filters keep `.`, `,`, `(`, `)` and `*` readable).
    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~,()*:")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
