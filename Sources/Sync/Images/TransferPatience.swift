import Synchronization

/// How background work that decodes whole images (perceptual hashes, screen renditions) or reads the
/// whole library (the Pictures folder's reconcile) keeps out of the downloads' way: it waits while files
/// download, but not for good — a stalled transfer must not hold it off, so after `patience` it goes
/// ahead beside them.
public final class TransferPatience<C: Clock<Duration>>: Sendable {
    private let transfersActive: @Sendable () -> Bool
    private let patience: Duration
    /// What the patience is counted on.
    public let clock: C
    /// When the work began to wait on downloads (nil: it is not waiting).
    private let heldSince = Mutex<C.Instant?>(nil)

    public init(transfersActive: @escaping @Sendable () -> Bool, patience: Duration, clock: C = ContinuousClock()) {
        self.transfersActive = transfersActive
        self.patience = patience
        self.clock = clock
    }

    /// While files download, when the work may go ahead anyway (the patience spent); nil when it may go
    /// ahead now. Asked before each file, so that downloads that start mid-batch stop the batch.
    public func holdOffUntil() -> C.Instant? {
        let active = transfersActive()
        return heldSince.withLock { since -> C.Instant? in
            guard active else {
                since = nil
                return nil
            }
            let now = clock.now
            let until = (since ?? now).advanced(by: patience)
            if since == nil { since = now }
            return until > now ? until : nil
        }
    }

    /// The work went ahead: if files still download, its next wait is a new one, with all its patience
    /// (work that comes back again and again, like the Pictures folder's, waits each time).
    public func wentAhead() {
        heldSince.withLock { $0 = nil }
    }
}
