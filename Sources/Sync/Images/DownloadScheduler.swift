import Foundation
import Store
import Support

/// What the image queue decides, as a value: which missing files start (admission against the free
/// slots, retries not yet due, hosts not answering), when to read the store again for what is missing,
/// what a transfer's end or failure leaves behind (the retry and its time), and the counts events and
/// `cache.status` show. No I/O and no clock of its own: every decision is given `now`, so it is tested
/// without a network (`DownloadSchedulerTests`); `ImageQueue` keeps one under its lock.
///
/// Transfers are keyed by photo id (library files) or `thumb:<photo id>` (feeds' thumbnails).
struct DownloadScheduler: Sendable {
    /// A file waiting to try again.
    struct Retry: Sendable, Equatable {
        var attempts: Int
        var lastError: String
        var status: Int?
        var due: ContinuousClock.Instant
        var dueDate: Date
    }

    /// What the store said is missing, read when a slot is free or a retry waits.
    struct Listing: Sendable {
        var accountId: String
        var missing: [PhotoFileStore.Missing]
        /// Whether `missing` is every missing file (the read asked for more than it found); false for a
        /// listing taken again, which is no longer news about what is missing.
        var complete: Bool
        /// The count of finished transfers when the read began.
        var finishedBefore: Int
    }

    /// What a look does about what is missing.
    enum Look: Sendable {
        /// Every slot is taken and no retry waits: nothing can start.
        case nothing
        /// The last read still has a file to start, and nothing rang since.
        case reuse(Listing)
        /// Read the store, asking for `wanted` files.
        case read(wanted: Int, finishedBefore: Int)
    }

    /// How many missing files one read lists, at least: a transfer's end takes the next one from the last
    /// read instead of reading again. Each read walks the account's likes newest first past every one
    /// that already has its file, so reading after each of a pull's thousand transfers walked the pull's
    /// own arrivals a thousand times (a twelfth of the daemon's CPU in a 1,000-image pull, perf).
    static let listedPerSlot = 16

    /// Transfers at once.
    let slots: Int
    let backoff: Backoff

    var thumbnails = ThumbnailWishList()
    private(set) var retries: [String: Retry] = [:]
    /// In flight, by key, with the bytes so far and the total when known.
    private(set) var active: [String: (bytes: Int64, total: Int64?)] = [:]
    /// Library transfers whose bytes are all here, being checked, hashed and landed (`FileCommitter`
    /// flushes them a batch at a time): still active, so never started twice, but their slot is
    /// the next transfer's. Holding the slot until the file was durable left the connections idle
    /// while each batch's flushes waited for the disk.
    private var landing: Set<String> = []
    /// Transfers that ended, their event not yet out: the event no longer counts them, `progress` (what
    /// `cache.status` and background work read) still does, so that "nothing downloads" is only said
    /// once every transfer's event is out and whoever it wakes was woken.
    private var announcing: Set<String> = []
    private(set) var finished = 0
    /// Photos whose transfer ended, with `finished` as it stood then; kept until a look that began
    /// after them (see `start`).
    private var recentlyFinished: [String: Int] = [:]
    private var bytes: Int64 = 0
    /// The last read of what is missing, taken again while it still has a file to start.
    private var listing: Listing?

    init(slots: Int, backoff: Backoff) {
        self.slots = max(1, slots)
        self.backoff = backoff
    }

    /// Transfers that hold a slot: the active ones not landing.
    var transferring: Int { active.count - landing.count }

    func isActive(_ key: String) -> Bool { active[key] != nil }

    /// Whether a file of `listing` may start now, its host aside: not in flight, not finished since the
    /// read (see `start`), not waiting for its retry.
    func mayStart(_ job: PhotoFileStore.Missing, of listing: Listing, now: ContinuousClock.Instant) -> Bool {
        active[job.photoId] == nil
            && (recentlyFinished[job.photoId].map { $0 <= listing.finishedBefore } ?? true)
            && (retries[job.photoId].map { $0.due <= now } ?? true)
    }

    /// The counts; `announced`: as the next event says them, without the transfers it announces ended.
    func progress(announced: Bool) -> ImageQueue.Progress {
        var progress = ImageQueue.Progress()
        progress.active = active.count - (announced ? announcing.count : 0)
        progress.failing = retries.count
        progress.finished = finished
        progress.bytes = bytes + active.values.reduce(0) { $0 + $1.bytes }
        return progress
    }

    /// What it is doing about one photo's library file, for `photos.show`.
    func state(of photoId: String) -> ImageQueue.PhotoState? {
        if let active = active[photoId] { return .downloading(bytes: active.bytes, total: active.total) }
        if let retry = retries[photoId] {
            return .waiting(attempts: retry.attempts, lastError: retry.lastError, status: retry.status, nextAttempt: retry.dueDate)
        }
        return nil
    }

    /// The earliest retry after `now`. One already due but not started waits for a free slot, and a
    /// finished transfer rings: a past deadline would spin the loop.
    func nextRetry(after now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        retries.values.map(\.due).filter { $0 > now }.min()
    }

    /// Whether to read the store for what is missing (`stale`: something rang that may change it — likes,
    /// a sign-in, a pull, the network back; a transfer's end does not).
    func look(accountId: String, stale: Bool, now: ContinuousClock.Instant) -> Look {
        guard transferring < slots || !retries.isEmpty else { return .nothing }
        if !stale, var reusable = listing, reusable.accountId == accountId,
           reusable.missing.contains(where: { mayStart($0, of: reusable, now: now) }) {
            reusable.complete = false
            return .reuse(reusable)
        }
        return .read(wanted: max(slots * Self.listedPerSlot, slots + active.count + retries.count), finishedBefore: finished)
    }

    mutating func listed(_ listing: Listing) {
        self.listing = listing
    }

    /// Missing files that are neither in flight nor waiting for a retry, nor on a host that does not
    /// answer (`usable`), as many as free slots allow; they are active from here, so that the next look
    /// does not start them twice.
    mutating func start(
        from listing: Listing, now: ContinuousClock.Instant, usable: (PhotoFileStore.Missing) -> Bool
    ) -> [PhotoFileStore.Missing] {
        // A transfer that ended while the store was read may still be on the list, though it is
        // recorded now and no longer active: starting it again would fetch it (and count its
        // Unsplash download) twice. Those photos are left out; the ones that ended before the read
        // began are in the store it read, and are forgotten. (Starting nothing at all after such
        // an overlap would leave every slot idle until a look overlapped no end, with 8 transfers
        // ending all the time.)
        recentlyFinished = recentlyFinished.filter { $0.value > listing.finishedBefore }
        let endedDuringRead = Set(recentlyFinished.keys)
        let missing = listing.missing.filter { !endedDuringRead.contains($0.photoId) }
        if listing.complete {
            // A photo unliked (or recorded) meanwhile no longer waits for anything.
            let ids = Set(missing.map(\.photoId))
            retries = retries.filter { ids.contains($0.key) }
        }
        var chosen: [PhotoFileStore.Missing] = []
        for job in missing where transferring < slots && mayStart(job, of: listing, now: now) {
            guard usable(job) else { continue }
            active[job.photoId] = (0, nil)
            chosen.append(job)
        }
        return chosen
    }

    /// Takes `key` for a transfer outside the queue's order (a person is waiting for it); false when it
    /// is in flight already.
    mutating func claim(_ key: String) -> Bool {
        guard active[key] == nil else { return false }
        active[key] = (0, nil)
        return true
    }

    /// Thumbnails wished for, as many as could take the slots left free (some may be present already).
    func thumbnailCandidates() -> [String] {
        thumbnails.first((slots - transferring) * 4)
    }

    /// Of the candidates read (`job` nil: the thumbnail is there already, the wish is dropped), those that
    /// start now, in the slots left free; active from here under `thumb:<id>`.
    mutating func startThumbnails(
        _ candidates: [(id: String, job: PhotoFileStore.Missing?)], usable: (PhotoFileStore.Missing) -> Bool
    ) -> [PhotoFileStore.Missing] {
        var chosen: [PhotoFileStore.Missing] = []
        for (id, job) in candidates {
            guard let job, transferring < slots else {
                if job == nil { thumbnails.remove(id) }
                continue
            }
            guard usable(job), claim("thumb:" + id) else { continue }
            thumbnails.remove(id)
            chosen.append(job)
        }
        return chosen
    }

    mutating func progressed(_ key: String, bytes: Int64, total: Int64?) {
        active[key] = (bytes, total)
    }

    /// The file's bytes are all here: its slot is the next transfer's while it lands.
    mutating func landing(_ photoId: String) {
        landing.insert(photoId)
    }

    mutating func landed(_ photoId: String) {
        landing.remove(photoId)
    }

    /// A library file was recorded: counted, its retry forgotten; in flight until `end` (its event).
    mutating func succeeded(_ photoId: String, bytes fileBytes: Int64) {
        retries.removeValue(forKey: photoId)
        finished += 1
        recentlyFinished[photoId] = finished
        bytes += fileBytes
        awaitAnnouncement(photoId)
    }

    /// A library file's transfer failed: its retry, later each time (a permanent failure waits the
    /// longest interval: a catalogue may still fix it, but hammering won't); in flight until `end`.
    mutating func failed(_ photoId: String, _ failure: ImageFailure, now: ContinuousClock.Instant, nowDate: Date) -> Retry {
        let attempts = (retries[photoId]?.attempts ?? 0) + 1
        let delay = backoff.delay(afterFailures: failure.transient ? attempts : 64, retryAfter: failure.retryAfter.map { .seconds($0) })
        let retry = Retry(
            attempts: attempts, lastError: failure.message, status: failure.status, due: now + delay,
            dueDate: nowDate.addingTimeInterval(delay.timeInterval))
        retries[photoId] = retry
        awaitAnnouncement(photoId)
        return retry
    }

    /// An ended transfer stays in flight, its bytes no longer counted there, until `end`: its event is
    /// out by then (see `announcing`).
    private mutating func awaitAnnouncement(_ photoId: String) {
        active[photoId] = (0, nil)
        announcing.insert(photoId)
    }

    /// The transfer `key` is over: its slot is free.
    mutating func end(_ key: String) {
        active.removeValue(forKey: key)
        announcing.remove(key)
        landing.remove(key)
    }
}
