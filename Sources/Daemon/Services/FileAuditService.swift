import Library
import Logging
import ServiceLifecycle
import Support

/// After a run that did not end cleanly, hashes every file it wrote (`FileAudit`) beside the rest of
/// the start, once. A file asked for before its turn is hashed by whoever asks (the gallery, `photos
/// show`): nothing waits for this.
struct FileAuditService: Service {
    let audit: FileAudit
    let logger: Logger

    func run() async throws {
        let total = audit.remaining
        guard total > 0 else { return }
        let damaged = await blockingWork { audit.checkAll() }.count
        logger.notice("checked the files written before the last unclean stop: \(total - damaged) whole, \(damaged) damaged", metadata: [
            "splashd_op": "audit", "splashd_files_checked": "\(total)", "splashd_files_damaged": "\(damaged)",
        ])
    }
}
