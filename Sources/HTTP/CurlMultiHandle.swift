import CCurl

/// Owns a `CURLM*`. The multi handle holds the connection cache, so every transfer added to it can reuse
/// connections (and HTTP/2 streams) opened by earlier ones, even though each transfer has its own easy handle.
/// Only the engine thread touches it, except `wakeup`, which libcurl documents as callable from any thread.
final class CurlMultiHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init?() {
        guard CurlGlobal.ensureInitialized(), let multi = curl_multi_init() else { return nil }
        pointer = multi
    }

    deinit { curl_multi_cleanup(pointer) }

    func set(_ option: CURLMoption, _ value: Int) {
        _ = splashd_multi_setopt_long(pointer, option, value)
    }

    func add(_ easy: CurlEasyHandle) -> CURLMcode { curl_multi_add_handle(pointer, easy.pointer) }

    func remove(_ easy: CurlEasyHandle) { _ = curl_multi_remove_handle(pointer, easy.pointer) }

    /// Drives every transfer as far as it can go without blocking; returns how many are still running.
    func perform() -> Int {
        var running: Int32 = 0
        _ = curl_multi_perform(pointer, &running)
        return Int(running)
    }

    /// Sleeps until a socket is ready, libcurl's own timer expires, `timeoutMs` passes or `wakeup` is called.
    func poll(timeoutMs: Int32) {
        var ready: Int32 = 0
        _ = curl_multi_poll(pointer, nil, 0, timeoutMs, &ready)
    }

    /// Interrupts a `poll` in progress (or the next one) from any thread.
    func wakeup() { _ = curl_multi_wakeup(pointer) }

    /// Returns finished transfers: the easy handle pointer and its result code.
    func completed() -> [(easy: UnsafeMutableRawPointer, result: CURLcode)] {
        var done: [(easy: UnsafeMutableRawPointer, result: CURLcode)] = []
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(pointer, &remaining) {
            if splashd_msg_is_done(message) != 0, let easy = message.pointee.easy_handle {
                done.append((easy, splashd_msg_result(message)))
            }
        }
        return done
    }
}
