import CCurl
import Synchronization

/// What one finished transfer produced, before the client turns it into a response or a download result.
struct TransferOutcome: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
    var effectiveURL: String
    var redirectURL: String?
    var httpVersion: String
}

/// One request in flight: its easy handle, the header list the handle points to, the response being collected
/// and the continuation of the task awaiting it.
///
/// Sendable by hand: it is built by the calling task, handed to the engine thread through the engine's lock,
/// mutated only on the engine thread (libcurl invokes the callbacks from `curl_multi_perform` there), and read
/// again only after the continuation resumed. `cancelRequested` is the one field touched from other threads.
final class Transfer: @unchecked Sendable {
    enum Sink {
        case memory(limit: Int)
        case file(FileSink)
    }

    let easy: CurlEasyHandle
    private let headerList: CurlHeaderList
    private let sink: Sink
    let cancelRequested = Atomic<Bool>(false)

    private var status = 0
    private var headers = HTTPHeaders()
    /// The final response's header block has ended; later header lines are trailers.
    private var inBody = false
    private var body: [UInt8] = []
    /// Set by a callback that aborted the transfer; it explains the resulting CURLE_WRITE_ERROR.
    private var abortError: HTTPError?
    private var continuation: CheckedContinuation<Result<TransferOutcome, HTTPError>, Never>?
    /// When a callback last delivered anything (or the engine first saw the transfer connected; nil
    /// before), and when the engine last nudged it. Engine thread only; see `TransferEngine.nudgeStalled`.
    var lastActivity: ContinuousClock.Instant?
    var lastNudge: ContinuousClock.Instant?
    /// The request's whole-transfer timeout, nil for none. libcurl keeps it (CURLOPT_TIMEOUT_MS) and the
    /// engine ends the transfer itself a little after it, whatever state libcurl holds it in; or, when a
    /// rate limit was in force as it began (`timedByEngine`), the engine alone keeps it, without the
    /// time the transfer spent paused for the rate: a limit the person set slows a request down, it must
    /// not make a large body fail at every try.
    let timeout: Duration?
    let timedByEngine: Bool
    /// When the engine added it. Engine thread only.
    var addedAt: ContinuousClock.Instant?
    /// The rates its bytes are admitted under, and the direction whose bucket it waits for (its write or
    /// read callback paused it). Engine thread only; see `BandwidthLimits`.
    var bandwidth: BandwidthLimits?
    var pausedForRate: BandwidthLimits.Direction? {
        didSet {
            if pausedForRate != nil && oldValue == nil { pausedSince = .now }
            if pausedForRate == nil, oldValue != nil, let since = pausedSince { pausedBefore += .now - since }
        }
    }
    var pausedSince: ContinuousClock.Instant?
    /// Time spent paused for the rate in earlier pauses.
    private var pausedBefore = Duration.zero
    /// The request body, handed to libcurl by the read callback as the upload rate allows, and how much
    /// of it libcurl has taken (libcurl moves it back through the seek callback to send it again).
    private let requestBody: BodySource
    private var bodySent: Int64 = 0

    init(easy: CurlEasyHandle, headerList: CurlHeaderList, sink: Sink, requestBody: BodySource, timeout: Duration?, timedByEngine: Bool) {
        self.timeout = timeout
        self.timedByEngine = timedByEngine
        self.easy = easy
        self.headerList = headerList
        self.sink = sink
        self.requestBody = requestBody
        let me = Unmanaged.passUnretained(self).toOpaque()
        // The engine holds the transfer for as long as libcurl may call back, so an unretained pointer is enough.
        easy.set(CURLOPT_HEADERDATA, pointer: me)
        easy.set(CURLOPT_WRITEDATA, pointer: me)
        easy.set(CURLOPT_READDATA, pointer: me)
        easy.set(CURLOPT_SEEKDATA, pointer: me)
        _ = splashd_easy_setopt_read_cb(easy.pointer) { buffer, size, count, user in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            return transfer.sendBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
        }
        _ = splashd_easy_setopt_seek_cb(easy.pointer) { user, offset, origin in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            return transfer.rewindBody(to: Int64(offset), from: origin)
        }
        _ = splashd_easy_setopt_header_cb(easy.pointer) { data, size, count, user in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            return transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        }
        _ = splashd_easy_setopt_write_cb(easy.pointer) { data, size, count, user in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
            // Over the rate: libcurl keeps these bytes and hands them over again once resumed.
            if let bandwidth = transfer.bandwidth, !bandwidth.admit(bytes.count, .download) {
                transfer.pausedForRate = .download
                return Int(CURL_WRITEFUNC_PAUSE)
            }
            return transfer.receiveBody(bytes) ? size * count : 0
        }
    }

    /// How long the transfer has been in the engine at `now`, less the time it was paused for the rate.
    func timeCounted(at now: ContinuousClock.Instant) -> Duration? {
        guard let addedAt else { return nil }
        let pausedNow = pausedForRate != nil ? pausedSince.map { now - $0 } ?? .zero : .zero
        return now - addedAt - pausedBefore - pausedNow
    }

    func start(_ continuation: CheckedContinuation<Result<TransferOutcome, HTTPError>, Never>) {
        self.continuation = continuation
    }

    /// Resumes the waiting task exactly once.
    func complete(_ result: Result<TransferOutcome, HTTPError>) {
        continuation?.resume(returning: result)
        continuation = nil
    }

    /// Called on the engine thread when libcurl reports the transfer done.
    func finish(_ code: CURLcode) {
        if let abortError { return complete(.failure(abortError)) }
        guard code == CURLE_OK else { return complete(.failure(Self.error(for: code, easy: easy))) }
        let outcome = TransferOutcome(
            status: status, headers: headers, body: body,
            effectiveURL: easy.info(string: CURLINFO_EFFECTIVE_URL) ?? "",
            redirectURL: easy.info(string: CURLINFO_REDIRECT_URL),
            httpVersion: Self.versionName(easy.info(long: CURLINFO_HTTP_VERSION)))
        complete(.success(outcome))
    }

    // MARK: callbacks (engine thread)

    /// libcurl hands over one header line at a time, status lines included. Every status line starts a new
    /// response (1xx interim responses come before the final one), so only the last response's fields remain.
    private func receiveHeader(_ raw: UnsafeRawBufferPointer) -> Bool {
        lastActivity = .now
        let line = String(decoding: raw, as: UTF8.self).trimming(" \r\n")
        if line.hasPrefix("HTTP/") {
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            headers = HTTPHeaders()
            inBody = false
        } else if line.isEmpty {
            // End of a header block. 1xx blocks are followed by another response; after the final one a
            // download decides whether it resumes or restarts. A blank line after trailers changes nothing.
            guard status >= 200, !inBody else { return true }
            inBody = true
            if case .file(let file) = sink, let error = file.begin(status: status, headers: headers) {
                abortError = error
                return false
            }
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...]).trimming(" \t")
            headers.add(name: name, value: value)
        }
        return true
    }

    /// Hands libcurl the body's next bytes, as many as fit, once the upload rate admits them; sending is
    /// activity, as receiving is (a large body at a low rate is not a stall).
    private func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = Int(min(Int64(buffer.count), requestBody.count - bodySent))
        guard count > 0 else { return 0 }
        if let bandwidth, !bandwidth.admit(count, .upload) {
            pausedForRate = .upload
            return Int(CURL_READFUNC_PAUSE)
        }
        switch requestBody.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<count]), at: bodySent) {
        case .success(let read):
            bodySent += Int64(read)
            lastActivity = .now
            return read
        case .failure(let error):
            abortError = error
            return Int(CURL_READFUNC_ABORT)
        }
    }

    /// libcurl sends the body again (a connection that died before the answer, a refused HTTP/2 stream).
    private func rewindBody(to offset: Int64, from origin: Int32) -> Int32 {
        guard origin == SEEK_SET, offset >= 0, offset <= requestBody.count else { return CURL_SEEKFUNC_CANTSEEK }
        bodySent = offset
        return CURL_SEEKFUNC_OK
    }

    /// Bodies arrive already decoded (gzip, br), so the size limit bounds what we hold, not what was sent.
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lastActivity = .now
        switch sink {
        case .memory(let limit):
            guard body.count + bytes.count <= limit else {
                abortError = .tooLarge(limit: limit)
                return false
            }
            body.append(contentsOf: bytes)
        case .file(let file):
            if let error = file.write(bytes) {
                abortError = error
                return false
            }
        }
        return true
    }

    // MARK: mapping

    static func error(for code: CURLcode, easy: CurlEasyHandle) -> HTTPError {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidURL
        case CURLE_TOO_MANY_REDIRECTS:
            return .tooManyRedirects
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED:
            return .tls(curlCode: Int32(code.rawValue), message: easy.errorMessage(for: code))
        default:
            return .network(curlCode: Int32(code.rawValue), message: easy.errorMessage(for: code))
        }
    }

    static func versionName(_ version: Int) -> String {
        switch version {
        case CURL_HTTP_VERSION_1_0: "1.0"
        case CURL_HTTP_VERSION_1_1: "1.1"
        case CURL_HTTP_VERSION_2_0: "2"
        case CURL_HTTP_VERSION_3: "3"
        default: ""
        }
    }
}

extension String {
    /// Trims the given characters from both ends (no Foundation needed).
    func trimming(_ set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
