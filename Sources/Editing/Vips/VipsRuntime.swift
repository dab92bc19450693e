internal import CVips
import Foundation

/// libvips, opened and started once per process, at its first use (CVips: an idle daemon never loads it
/// nor the 65 libraries it brings). Its operation cache is off — the daemon renders each edit once,
/// and a cache would hold decoded images in memory for nothing — and it uses at most two worker
/// threads, so an edit never takes the whole machine from the person using it.
enum VipsRuntime {
    private static let started: Result<Void, EditingError> = {
        guard splashd_vips_init("splashd") == 0 else { return .failure(.engine(VipsRuntime.takeError())) }
        splashd_vips_cache_set_max(0)
        splashd_vips_cache_set_max_mem(0)
        splashd_vips_concurrency_set(2)
        return .success(())
    }()

    static func start() throws(EditingError) {
        try started.get()
    }

    /// libvips keeps its error messages in a per-process buffer (the loader's own failure when it could not be
    /// opened); this takes and clears it.
    static func takeError() -> String {
        let message = String(cString: splashd_vips_error()).trimmingCharacters(in: .whitespacesAndNewlines)
        splashd_vips_error_clear()
        return message.isEmpty ? "libvips failed without saying why" : message
    }
}
