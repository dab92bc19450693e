import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// Decides, before any I/O, whether a URL may be fetched: only http and https, and plain http only to
/// loopback or to hosts the configuration names. The URL is parsed with libcurl's own parser so the host
/// we judge is the host libcurl would connect to.
struct URLPolicy: Sendable {
    let insecureHTTPHosts: Set<String>

    /// Scheme, host and port: the origin, which decides whether credentials may follow a redirect.
    struct Target: Equatable {
        let scheme: String
        let host: String
        let port: Int
    }

    /// Throws `.invalidURL` for anything but an absolute http(s) URL with a host, `.insecureURL` for plain
    /// http to a host that is not allowed.
    func check(_ url: String) throws(HTTPError) -> Target {
        guard let target = Self.parse(url), target.scheme == "http" || target.scheme == "https", !target.host.isEmpty
        else { throw .invalidURL }
        if target.scheme == "http" && !Self.isLoopback(target.host) && !insecureHTTPHosts.contains(target.host) {
            throw .insecureURL(host: target.host)
        }
        return target
    }

    static func parse(_ url: String) -> Target? {
        guard CurlGlobal.ensureInitialized(), let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        // Flags 0: a scheme is required (no guessing), so "example.com/x" is invalid rather than http.
        guard curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK,
              let scheme = part(handle, CURLUPART_SCHEME), let host = part(handle, CURLUPART_HOST),
              let port = part(handle, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)).flatMap({ Int($0) })
        else { return nil }
        var bareHost = host.lowercased()
        if bareHost.hasPrefix("[") && bareHost.hasSuffix("]") { bareHost = String(bareHost.dropFirst().dropLast()) }
        return Target(scheme: scheme.lowercased(), host: bareHost, port: port)
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }

    /// 127.0.0.0/8, ::1 and the name localhost (which libcurl resolves to loopback without DNS).
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { $0.elementsEqual([UInt8](repeating: 0, count: 15) + [1]) }
        }
        return false
    }
}
