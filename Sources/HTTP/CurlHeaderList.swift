import CCurl

/// Owns a `curl_slist`. libcurl keeps only a pointer to the list for the whole transfer,
/// so the owner must live as long as the transfer that uses it (the `Transfer` holds it).
final class CurlHeaderList {
    private(set) var pointer: UnsafeMutablePointer<curl_slist>?

    init(_ lines: [String]) {
        for line in lines {
            // curl_slist_append copies the string; on allocation failure it returns NULL and
            // leaves the old list intact, so we keep the old pointer rather than leak it.
            if let appended = curl_slist_append(pointer, line) { pointer = appended }
        }
    }

    deinit { curl_slist_free_all(pointer) }
}
