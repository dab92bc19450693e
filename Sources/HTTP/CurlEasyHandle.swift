import CCurl

/// Owns a `CURL*` and the error buffer libcurl writes into. One per transfer: a fresh handle carries no state
/// (method, body, range) from an earlier request, and connection reuse does not need handle reuse because the
/// connection cache lives in the multi handle.
final class CurlEasyHandle {
    let pointer: UnsafeMutableRawPointer
    /// libcurl keeps this pointer and writes a detailed message on failure; it must outlive the handle.
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init?() {
        guard CurlGlobal.ensureInitialized(), let easy = curl_easy_init() else { return nil }
        pointer = easy
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        _ = splashd_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    deinit {
        curl_easy_cleanup(pointer)
        errorBuffer.deallocate()
    }

    /// The detailed message for the last failure, or libcurl's generic text for `code`.
    func errorMessage(for code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? CurlGlobal.describe(code) : detail
    }

    // Setters return the result so that configuration failures (an option this libcurl lacks) can be surfaced.
    @discardableResult func set(_ option: CURLoption, _ value: Int) -> CURLcode {
        splashd_easy_setopt_long(pointer, option, value)
    }

    @discardableResult func set(_ option: CURLoption, offset value: Int64) -> CURLcode {
        splashd_easy_setopt_off(pointer, option, curl_off_t(value))
    }

    /// libcurl copies string options (since 7.17), so the Swift string need not outlive the call.
    @discardableResult func set(_ option: CURLoption, _ value: String) -> CURLcode {
        splashd_easy_setopt_str(pointer, option, value)
    }

    @discardableResult func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) -> CURLcode {
        splashd_easy_setopt_ptr(pointer, option, value)
    }

    @discardableResult func set(_ option: CURLoption, list: CurlHeaderList) -> CURLcode {
        splashd_easy_setopt_slist(pointer, option, list.pointer)
    }

    /// A request with a body of `count` bytes, which the transfer's read callback hands over (POST; a
    /// custom method on top sends it as well). The size goes first as Content-Length, so libcurl does not
    /// fall back to chunked encoding.
    func setBody(count: Int64) {
        set(CURLOPT_POST, 1)
        set(CURLOPT_POSTFIELDSIZE_LARGE, offset: count)
    }

    /// Pauses receiving and resumes at once. The resume is what matters: libcurl then runs the transfer
    /// soon and makes it read from its connection even though the socket is quiet, because the data may
    /// already have been read off the socket for it. See `TransferEngine.nudgeStalled`.
    /// Only for a transfer that has reached its request (`hasConnection`): libcurl dereferences the
    /// transfer's connection here.
    func nudge() {
        _ = curl_easy_pause(pointer, CURLPAUSE_RECV)
        _ = curl_easy_pause(pointer, CURLPAUSE_CONT)
    }

    /// Resumes a transfer its write or read callback paused (CURL_WRITEFUNC_PAUSE, CURL_READFUNC_PAUSE):
    /// libcurl hands a paused download's kept bytes to the callback again from inside this call, and asks
    /// a paused upload for its next bytes again.
    func resume() {
        _ = curl_easy_pause(pointer, CURLPAUSE_CONT)
    }

    /// The transfer has a connection and has sent (or is sending) its request: libcurl stamps the
    /// pre-transfer time as it enters that state, and the handle keeps its connection until it is done.
    var hasConnection: Bool { info(offset: CURLINFO_PRETRANSFER_TIME_T) > 0 }

    func info(long info: CURLINFO) -> Int {
        var value = 0
        _ = splashd_easy_getinfo_long(pointer, info, &value)
        return value
    }

    func info(offset info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        _ = splashd_easy_getinfo_off(pointer, info, &value)
        return Int64(value)
    }

    func info(string info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard splashd_easy_getinfo_str(pointer, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }
}
