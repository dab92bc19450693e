internal import CVips
import Foundation

/// libvips, started once per process. Its operation cache is off — the daemon renders each edit once,
/// and a cache would hold decoded images in memory for nothing — and it uses at most two worker
/// threads, so an edit never takes the whole machine from the person using it.
enum VipsRuntime {
    private static let started: Result<Void, EditingError> = {
        guard splashd_vips_init("splashd") == 0 else { return .failure(.engine(VipsRuntime.takeError())) }
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_concurrency_set(2)
        return .success(())
    }()

    static func start() throws(EditingError) {
        try started.get()
    }

    /// libvips keeps its error messages in a per-process buffer; this takes and clears it.
    static func takeError() -> String {
        let message = String(cString: vips_error_buffer()).trimmingCharacters(in: .whitespacesAndNewlines)
        vips_error_clear()
        return message.isEmpty ? "libvips failed without saying why" : message
    }
}
