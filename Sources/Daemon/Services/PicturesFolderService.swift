import Clocks
import Foundation
import Library
import Logging
import ServiceLifecycle
import Shared
import Store
import Support
import Sync
import Synchronization

/// Keeps the Pictures folder (`PicturesFolder`: `My Collection/`, `Edits/`) in step with the library.
/// A full reconcile at the start mends whatever a stop or a crash left (a like whose link was never
/// made); after that the bus wakes it — a like, unlike or edit (`photo.changed`), a file arrived
/// (`images.changed` finished), an edit removed (`library.changed`), another account — and so do files
/// moved between the library and the cache (the store's `followFileMoves`); a burst of wakes is one
/// reconcile (one file's arrival rings twice); what cannot change the folder (the same account's
/// session refreshed, a pull's unliked photos counted) wakes nothing (`PicturesFolderWakes`). A reconcile reads
/// what the folder should hold in one query and the two directories once, and changes nothing when
/// they agree.
///
/// With `pictures.export = false` it makes nothing, and removes at the start the entries it made
/// before (the person's own files stay).
final class PicturesFolderService: Service, Sendable {
    let folder: PicturesFolder
    let enabled: Bool
    private let accountId: @Sendable () -> String
    private let logger: Logger
    private let wakeup = Wakeup()
    private let bus: FollowedBus
    /// One reconcile at a time: the service's and a `library.export` request's.
    private let busy = Mutex(())
    /// How long a wake waits for more before reconciling (a pull's burst of arrivals).
    private let settle: Duration
    /// While files download (as the bus last said), or wakes keep coming (a pull's pages of likes), a
    /// reconcile waits for them, up to a patience: each reconcile reads every liked photo and both
    /// directories, and a pull's thousand arrivals woke one every `settle` (7.5 % of the daemon's CPU
    /// during a pull of 1,000 files, more as the library grows). The changes still show up, a batch every
    /// `patience`, and all of them once the downloads and the wakes end.
    private let downloads: TransferPatience<AnyClock<Duration>>?
    /// What the settle and the patience are counted on.
    private let clock: AnyClock<Duration>
    /// The failures last logged: a folder that cannot be written is said once, not at every like.
    private let lastFailures = Mutex<[String]>([])

    init(
        folder: PicturesFolder, enabled: Bool, accountId: @escaping @Sendable () -> String, settle: Duration = .milliseconds(150),
        downloadPatience: Duration? = nil, clock: AnyClock<Duration>, logger: Logger
    ) {
        let bus = FollowedBus()
        self.bus = bus
        self.downloads = downloadPatience.map {
            TransferPatience(transfersActive: { bus.wakes.withLock { $0.downloading > 0 || $0.stillChanging() } }, patience: $0, clock: clock)
        }
        self.clock = clock
        self.folder = folder
        self.enabled = enabled
        self.accountId = accountId
        self.settle = settle
        self.logger = logger
    }

    /// Wakes it on the events that change what the folder should hold, and on the store's moves of files
    /// between the library and the cache (off: nothing to follow); `counts` is the library's counts
    /// now, which the start's reconcile makes the folder match.
    func follow(_ eventBus: EventBus, counts: LibraryCounts, library: PhotoLibrary) {
        guard enabled else { return }
        bus.wakes.withLock { $0 = PicturesFolderWakes(account: accountId(), library: counts) }
        library.followFileMoves { [bus, wakeup] in
            bus.wakes.withLock { $0.filesMoved() }
            wakeup.ring()
        }
        _ = eventBus.subscribe(types: [.photoChanged, .libraryChanged, .imagesChanged, .accountChanged], snapshot: {}) {
            [bus, wakeup, accountId] notification in
            if bus.wakes.withLock({ $0.wakes(on: notification.event, actingAccount: accountId()) }) { wakeup.ring() }
        }
    }

    func ring() { wakeup.ring() }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            guard self.enabled else {
                self.clear()
                while !Task.isCancelled { await self.wakeup.wait(until: nil) }
                return
            }
            let start = self.bus.wakes.withLock { $0.beginReconcile() } ?? 0
            _ = await blockingWork { self.reconcile(reason: "start", covering: start) }
            while !Task.isCancelled {
                await self.wakeup.wait(until: nil)
                if Task.isCancelled { return }
                self.bus.wakes.withLock { $0.settleBegins() }
                try? await self.clock.sleep(for: self.settle)
                // The wait is checked anew at each ring (a finished download, a wake) and each settle: it
                // ends with the last download, or a settle after the last wake, or when the patience is spent.
                while let until = self.downloads?.holdOffUntil(), !Task.isCancelled {
                    await self.wakeup.wait(until: min(until, self.clock.now.advanced(by: self.settle)), clock: self.clock)
                }
                self.downloads?.wentAhead()
                guard let covering = self.bus.wakes.withLock({ $0.beginReconcile() }) else { continue }
                _ = await blockingWork { self.reconcile(reason: "change", covering: covering) }
            }
        }
    }

    /// `library.export`: compares (`check`) or rebuilds, now, on a thread of its own (`blockingWork`).
    func export(check: Bool) async throws -> LibraryExportResult {
        try await blockingWork { Result { try self.exportNow(check: check) } }.get()
    }

    private func exportNow(check: Bool) throws -> LibraryExportResult {
        guard enabled else {
            throw DaemonFailure.picturesExportOff(folder: folder.folder)
        }
        if check {
            let following = bus.wakes.withLock { $0.following }
            let wanted = try folder.wanted(accountId: accountId())
            let difference = busy.withLock { _ in folder.check(wanted) }
            return LibraryExportResult(
                folder: folder.folder, checked: true, inStep: difference.inStep, entries: wanted.count, missing: difference.missing,
                extra: difference.extra, wrong: difference.wrong, made: 0, removed: 0, symlinks: 0, failures: [], following: following)
        }
        let covering = bus.wakes.withLock { $0.beginReconcile() }
        let wanted = try folder.wanted(accountId: accountId())
        let outcome = busy.withLock { _ in folder.reconcile(wanted) }
        let following = bus.wakes.withLock { wakes in
            if let covering { wakes.finishReconcile(covering: covering) }
            return wakes.following
        }
        log(outcome, reason: "request")
        return LibraryExportResult(
            folder: folder.folder, checked: false, inStep: outcome.failures.isEmpty, entries: wanted.count,
            missing: outcome.before.missing, extra: outcome.before.extra, wrong: outcome.before.wrong, made: outcome.made,
            removed: outcome.removed, symlinks: outcome.symlinked, failures: outcome.failures, following: following)
    }

    /// Brings the folder after the library; `covering` is what `PicturesFolderWakes.beginReconcile`
    /// said before (the wakes this reconcile answers).
    @discardableResult
    func reconcile(reason: String, covering: Int) -> PicturesFolder.Outcome? {
        let started = ContinuousClock.now
        defer { bus.wakes.withLock { $0.finishReconcile(covering: covering) } }
        do {
            let wanted = try folder.wanted(accountId: accountId())
            let outcome = busy.withLock { _ in folder.reconcile(wanted) }
            log(outcome, reason: reason, started: started)
            return outcome
        } catch {
            logger.error("cannot read what the Pictures folder should hold: \(error)", metadata: ["splashd_op": "pictures_folder"])
            return nil
        }
    }

    private func log(_ outcome: PicturesFolder.Outcome, reason: String, started: ContinuousClock.Instant? = nil) {
        let repeated = lastFailures.withLock { last in
            defer { last = outcome.failures }
            return last == outcome.failures
        }
        if !repeated {
            for failure in outcome.failures.prefix(5) {
                logger.warning("Pictures folder: \(failure)", metadata: ["splashd_op": "pictures_folder"])
            }
            if outcome.failures.count > 5 {
                logger.warning("Pictures folder: \(outcome.failures.count - 5) more entries failed", metadata: ["splashd_op": "pictures_folder"])
            }
        }
        guard outcome.made + outcome.removed > 0 else { return }
        var metadata: Logger.Metadata = [
            "splashd_op": "pictures_folder", "splashd_trigger": "\(reason)", "splashd_made": "\(outcome.made)",
            "splashd_removed": "\(outcome.removed)", "splashd_symlinks": "\(outcome.symlinked)",
        ]
        if let started { metadata["splashd_duration_ms"] = "\(started.millisecondsElapsed)" }
        logger.info("Pictures folder: \(outcome.made) made, \(outcome.removed) removed in \(folder.folder)", metadata: metadata)
    }

    private func clear() {
        let outcome = busy.withLock { _ in folder.clear() }
        if outcome.removed > 0 {
            logger.notice("pictures.export is off: removed the \(outcome.removed) entries splashd had made in \(folder.folder)", metadata: [
                "splashd_op": "pictures_folder",
            ])
        }
    }
}

/// The service's view of the bus, shared with its download patience (which asks what the bus said);
/// `follow` sets it to the account and counts it starts from.
private final class FollowedBus: Sendable {
    let wakes = Mutex(PicturesFolderWakes(account: "", library: .empty))
}
