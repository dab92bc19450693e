import Synchronization

/// How background work that decodes whole images (perceptual hashes, screen renditions) keeps out of
/// the downloads' way: it waits while files download, but not for good — a stalled transfer must not
/// hold it off, so after `patience` it goes ahead beside them.
final class TransferPatience: Sendable {
    private let transfersActive: @Sendable () -> Bool
    private let patience: Duration
    /// When the work began to wait on downloads (nil: it is not waiting).
    private let heldSince = Mutex<ContinuousClock.Instant?>(nil)

    init(transfersActive: @escaping @Sendable () -> Bool, patience: Duration) {
        self.transfersActive = transfersActive
        self.patience = patience
    }

    /// While files download, when the work may go ahead anyway (the patience spent); nil when it may go
    /// ahead now. Asked before each file, so that downloads that start mid-batch stop the batch.
    func holdOffUntil() -> ContinuousClock.Instant? {
        let active = transfersActive()
        return heldSince.withLock { since -> ContinuousClock.Instant? in
            guard active else {
                since = nil
                return nil
            }
            let now = ContinuousClock.now
            let until = (since ?? now) + patience
            if since == nil { since = now }
            return until > now ? until : nil
        }
    }
}
