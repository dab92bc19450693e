#if canImport(Glibc)
import Glibc
#endif

/// What a person reads when a request fails: a sentence, never a Swift value's debug text such as
/// `tooLarge(limit: 33554432)`. Callers put it into their own context ("cannot reach Unsplash: ...").
extension HTTPError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .network(let code, let message): "network error (curl \(code)): \(message)"
        case .timeout: "no answer in time (the connection or the transfer stalled)"
        case .tls(_, let message):
            "the server's TLS identity could not be verified (\(message)); a private CA can be given as network.ca_file"
        case .http(let status, _, _): "the server answered HTTP \(status)"
        case .tooLarge(let limit): "the answer was larger than \(Self.size(limit)), so splashd stopped reading it"
        case .insecureURL(let host): "plain http:// to \(host) is refused; only loopback hosts may use http, use https://"
        case .cancelled: "the request was cancelled"
        case .invalidURL: "not a valid http(s) URL"
        case .invalidHeader(let name): "the request header \(name) holds a line break or NUL"
        case .tooManyRedirects: "too many redirects (a redirect loop?)"
        case .sizeMismatch(let expected, let actual): "got \(actual) bytes where \(expected) were announced"
        case .checksumMismatch: "the file's checksum did not match"
        case .file(let errno, let path): "cannot write \(path): \(String(cString: strerror(errno)))"
        case .shutdown: "splashd is shutting down"
        }
    }

    /// Whether waiting and trying again can mend it: the network, a timeout, a busy server, a body cut
    /// short, a full disk. The rest (an untrusted certificate, an answer too large, a redirect loop, a
    /// refused URL) will fail the same way until someone changes something.
    /// The host could not be reached at all: its name did not resolve, or nothing accepted the
    /// connection (libcurl's CURLE_COULDNT_RESOLVE_PROXY, _HOST, CURLE_COULDNT_CONNECT). A reset, a
    /// body cut short or any HTTP status is an answer from a host that is there.
    public var isUnreachable: Bool {
        if case .network(let code, _) = self { return [5, 6, 7].contains(code) }
        return false
    }

    public var isTransient: Bool {
        switch self {
        case .network, .timeout, .sizeMismatch, .checksumMismatch, .file, .cancelled, .shutdown: true
        case .http(let status, _, _): status == 408 || status == 429 || status >= 500
        case .tls, .tooLarge, .insecureURL, .invalidURL, .invalidHeader, .tooManyRedirects: false
        }
    }

    private static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }
}
