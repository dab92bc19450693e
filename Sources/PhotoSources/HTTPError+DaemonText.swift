#if canImport(Glibc)
import Glibc
#endif
import HTTP
import Shared

// HTTP sits below the protocol and does not know Shared; the two services that put its failures on
// the wire (the photo sources here, the account server in the daemon's WireErrors) take them as
// sentences from this one mapping. The English is HTTPError's description, word for word.
extension HTTPError {
    /// The failure as a sentence of the protocol's, for clients that render it in their language.
    public var text: DaemonText {
        switch self {
        case .network(let code, let message): .networkError(curlCode: Int(code), message: message)
        case .timeout: .noAnswerInTime
        case .tls(_, let message): .tlsUnverified(message: message)
        case .http(let status, _, _): .serverAnsweredStatus(status: status)
        case .tooLarge(let limit): .answerTooLarge(limit: limit)
        case .insecureURL(let host): .insecureUrl(host: host)
        case .cancelled: .requestCancelled
        case .invalidURL: .invalidUrl
        case .invalidHeader(let name): .invalidHeader(name: name)
        case .tooManyRedirects: .tooManyRedirects
        case .sizeMismatch(let expected, let actual): .sizeMismatch(expected: Int(expected), actual: Int(actual))
        case .checksumMismatch: .checksumMismatch
        case .file(let errno, let path): .cannotWriteFile(path: path, reason: String(cString: strerror(errno)))
        case .shutdown: .shuttingDown
        }
    }
}
