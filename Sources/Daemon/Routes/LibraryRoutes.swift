import Control
import Library
import Logging
import Shared
import Store
import Sync

/// Likes, dismissals, the queue, `sync.now` and the pause.
enum LibraryRoutes {
    static func register(
        into router: inout Router, state: DaemonState, library: PhotoLibrary, sync: SyncCapability?, pause: SyncPause?,
        duplicateThreshold: Int, likeCheck: LikeActions.ArrivalCheck?, logger: Logger
    ) {
        let likes = sync?.likes ?? LikeActions(store: library.store, announce: state.announcements(outboxQueued: {}))
        let queue = OutboxQueue(store: library.store, announce: likes.announce)

        /// After a like, unlike or dismissal (which the domain announced): the answer.
        @Sendable func answer(_ id: String, _ outcome: LikeActions.Outcome, _ change: PhotoChange.Kind, accountId: String?) throws -> PhotoActionResult {
            let queued = outcome == .changed(queued: true)
            let flags = try library.flags(photoId: id, accountId: accountId)
            return PhotoActionResult(
                id: id, liked: flags.liked, dismissed: flags.dismissed, changed: outcome != .unchanged, queued: queued,
                guest: accountId == GuestRows.accountId && change != .dismissed && change != .restored ? true : nil)
        }

        // Signed out, likes are the guest's: kept here, never pushed unless an account adopts them.
        router.register(PhotosLikeRequest.self) { request, _ in
            let account = state.actingAccount
            let threshold = request.allowDuplicate == true ? nil : duplicateThreshold
            // A photo not yet compared with the library is liked at once and sent once its file has been.
            let outcome = try likes.like(photoId: request.id, accountId: account, refuseDuplicatesWithin: threshold, checkArrival: likeCheck)
            return try answer(request.id, outcome, .liked, accountId: account)
        }
        router.register(PhotosUnlikeRequest.self) { request, _ in
            let account = state.actingAccount
            return try answer(request.id, try likes.unlike(photoId: request.id, accountId: account), .unliked, accountId: account)
        }
        router.register(PhotosDismissRequest.self) { request, _ in
            let dismiss = request.undo != true
            let outcome = try likes.setDismissed(dismiss, photoId: request.id)
            return try answer(request.id, outcome, dismiss ? .dismissed : .restored, accountId: state.current.account.userId)
        }

        router.register(SyncNowRequest.self) { request, _ in
            let account = try state.requireAccount(.signInToSync)
            guard let service = sync?.service else { throw DaemonFailure.noAccountServer }
            guard request.wait == true else {
                service.start(accountId: account)
                return SyncResult(started: state.current)
            }
            let report = await service.syncAndWait(accountId: account, timeout: .seconds(request.timeoutSeconds ?? 60))
            return SyncResult(report, online: state.current.connectivity.state != .offline)
        }

        router.register(SyncPauseRequest.self) { request, _ in
            guard let pause else { throw CapabilityMissing("pausing sync") }
            return try pause.pause(for: request.forSeconds.map { Double($0) }, downloadsOnly: request.downloadsOnly ?? false)
        }
        router.register(SyncResumeRequest.self) { _, _ in
            guard let pause else { throw CapabilityMissing("pausing sync") }
            return try pause.resume()
        }

        router.register(QueueListRequest.self) { request, _ in
            QueueListResult(ops: try queue.list(rejectedOnly: request.rejected == true))
        }
        router.register(QueueRetryRequest.self) { request, _ in
            try queue.retry(opId: request.opId)
            return QueueChangeResult(opId: request.opId, state: "pending")
        }
        router.register(QueueDropRequest.self) { request, _ in
            try queue.drop(opId: request.opId)
            logger.notice("a queued change was dropped by request", metadata: ["splashd_op": "queue_drop", "splashd_op_id": "\(request.opId)"])
            return QueueChangeResult(opId: request.opId, state: "dropped")
        }
    }
}
