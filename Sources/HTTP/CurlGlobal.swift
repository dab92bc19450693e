import CCurl

/// `curl_global_init` is not thread-safe and must run once before any other libcurl call.
/// A lazily initialised global runs its initialiser exactly once (swift_once), which is what we need.
enum CurlGlobal {
    private static let initResult: CURLcode = splashd_global_init()

    /// Call before creating any handle. Returns false if libcurl could not initialise (out of memory, TLS backend).
    static func ensureInitialized() -> Bool { initResult == CURLE_OK }

    /// Human-readable text for a libcurl result code (static strings owned by libcurl).
    static func describe(_ code: CURLcode) -> String { String(cString: curl_easy_strerror(code)) }
}
