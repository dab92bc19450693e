import Shared

extension ImageQueue {
    /// `photos.show`'s view of a library file on its way: downloading, or waiting to retry.
    public func downloadStatus(of photoId: String) -> DownloadStatus? {
        switch state(of: photoId) {
        case .downloading(let bytes, let total)?:
            DownloadStatus(state: .downloading, bytes: bytes, total: total)
        case .waiting(let attempts, let lastError, let status, let next)?:
            DownloadStatus(state: .waiting, attempts: attempts, lastError: lastError, httpStatus: status, nextAttemptAt: next)
        case nil:
            nil
        }
    }
}
