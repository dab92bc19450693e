import Foundation
@testable import Store
import Support
@testable import Sync
import Testing

/// The image queue's decisions, without a store, a network or a clock: admission against the slots,
/// retries and their times, a listing taken again, a transfer that ended during a read, the counts.
@Suite struct DownloadSchedulerTests {
    static let t0 = ContinuousClock.now
    static let date0 = Date(timeIntervalSince1970: 1_800_000_000)
    /// No jitter: the retry times are exact.
    static let backoff = Backoff(minimum: .seconds(1), maximum: .seconds(300), jitter: 0)

    static func job(_ id: String) -> PhotoFileStore.Missing {
        PhotoFileStore.Missing(photoId: "unsplash:\(id)", source: "unsplash", remoteId: id, urls: nil)
    }

    static func listing(_ ids: [String], complete: Bool = true, finishedBefore: Int = 0) -> DownloadScheduler.Listing {
        DownloadScheduler.Listing(accountId: "u1", missing: ids.map(job), complete: complete, finishedBefore: finishedBefore)
    }

    @Test func startsNoMoreThanTheSlotsAndNeverOneInFlightTwice() {
        var scheduler = DownloadScheduler(slots: 2, backoff: Self.backoff)
        let first = scheduler.start(from: Self.listing(["a", "b", "c"]), now: Self.t0) { _ in true }
        #expect(first.map(\.remoteId) == ["a", "b"])
        #expect(scheduler.start(from: Self.listing(["a", "b", "c"]), now: Self.t0) { _ in true }.isEmpty, "every slot taken")

        // A file whose bytes are here lands without its slot: the next transfer starts beside it.
        scheduler.landing("unsplash:a")
        let next = scheduler.start(from: Self.listing(["a", "b", "c"]), now: Self.t0) { _ in true }
        #expect(next.map(\.remoteId) == ["c"], "a is still in flight, so it is not started again")
        #expect(scheduler.progress(announced: false).active == 3)
    }

    @Test func aHostThatDoesNotAnswerIsPassedOverNotWaitedFor() {
        var scheduler = DownloadScheduler(slots: 2, backoff: Self.backoff)
        let started = scheduler.start(from: Self.listing(["down", "up"]), now: Self.t0) { $0.remoteId != "down" }
        #expect(started.map(\.remoteId) == ["up"])
    }

    @Test func aFailureRetriesLaterEachTimeAndAPermanentOneAtTheLongest() {
        var scheduler = DownloadScheduler(slots: 4, backoff: Self.backoff)
        _ = scheduler.start(from: Self.listing(["a", "b"]), now: Self.t0) { _ in true }
        let transient = ImageFailure(message: "HTTP 503", status: 503, transient: true)
        let first = scheduler.failed("unsplash:a", transient, now: Self.t0, nowDate: Self.date0)
        scheduler.end("unsplash:a")
        #expect(first.attempts == 1 && first.due == Self.t0 + .seconds(1) && first.dueDate == Self.date0.addingTimeInterval(1))
        #expect(scheduler.start(from: Self.listing(["a"]), now: Self.t0) { _ in true }.isEmpty, "not due yet")
        #expect(scheduler.nextRetry(after: Self.t0) == Self.t0 + .seconds(1))

        let due = Self.t0 + .seconds(1)
        #expect(scheduler.start(from: Self.listing(["a"]), now: due) { _ in true }.map(\.remoteId) == ["a"])
        let second = scheduler.failed("unsplash:a", transient, now: due, nowDate: Self.date0)
        scheduler.end("unsplash:a")
        #expect(second.attempts == 2 && second.due == due + .seconds(2))

        let permanent = scheduler.failed("unsplash:b", ImageFailure(message: "HTTP 404", status: 404, transient: false), now: Self.t0, nowDate: Self.date0)
        #expect(permanent.due == Self.t0 + .seconds(300))
        let asked = scheduler.failed("unsplash:b", ImageFailure(message: "HTTP 429", status: 429, transient: true, retryAfter: 42), now: Self.t0, nowDate: Self.date0)
        #expect(asked.due == Self.t0 + .seconds(42), "Retry-After is kept")
        #expect(scheduler.state(of: "unsplash:b") == .downloading(bytes: 0, total: nil), "until its event is out")
        scheduler.end("unsplash:b")
        if case .waiting(let attempts, let lastError, let status, _)? = scheduler.state(of: "unsplash:b") {
            #expect(attempts == 2 && lastError == "HTTP 429" && status == 429)
        } else {
            Issue.record("b should be waiting, not \(String(describing: scheduler.state(of: "unsplash:b")))")
        }
    }

    @Test func aCompleteListingForgetsTheRetriesOfWhatIsNoLongerMissing() {
        var scheduler = DownloadScheduler(slots: 4, backoff: Self.backoff)
        _ = scheduler.start(from: Self.listing(["a"]), now: Self.t0) { _ in true }
        _ = scheduler.failed("unsplash:a", ImageFailure(message: "reset", transient: true), now: Self.t0, nowDate: Self.date0)
        scheduler.end("unsplash:a")
        _ = scheduler.start(from: Self.listing(["b"], complete: false), now: Self.t0) { _ in true }
        #expect(scheduler.progress(announced: false).failing == 1, "a partial listing says nothing of a")
        _ = scheduler.start(from: Self.listing(["b"]), now: Self.t0) { _ in true }
        #expect(scheduler.progress(announced: false).failing == 0, "unliked meanwhile: nothing waits for it")
    }

    /// A transfer that ended while the store was read is still on that read's list: it is not started
    /// again (its file would be fetched twice); one that ended before the read began is forgotten.
    @Test func aTransferThatEndedDuringTheReadIsNotStartedAgain() {
        var scheduler = DownloadScheduler(slots: 4, backoff: Self.backoff)
        _ = scheduler.start(from: Self.listing(["a", "b"]), now: Self.t0) { _ in true }
        guard case .read(_, let finishedBefore) = scheduler.look(accountId: "u1", stale: true, now: Self.t0) else {
            Issue.record("a stale look reads")
            return
        }
        scheduler.succeeded("unsplash:a", bytes: 10)
        scheduler.end("unsplash:a")
        let read = Self.listing(["a", "c"], finishedBefore: finishedBefore)
        #expect(scheduler.start(from: read, now: Self.t0) { _ in true }.map(\.remoteId) == ["c"])

        scheduler.succeeded("unsplash:b", bytes: 10)
        scheduler.end("unsplash:b")
        guard case .read(_, let after) = scheduler.look(accountId: "u1", stale: true, now: Self.t0) else { return }
        #expect(scheduler.start(from: Self.listing(["a"], finishedBefore: after), now: Self.t0) { _ in true }.map(\.remoteId) == ["a"],
                "ended before this read began: the store's answer is the truth")
    }

    @Test func theLastReadIsTakenAgainUntilSomethingRingsOrNothingInItCanStart() {
        var scheduler = DownloadScheduler(slots: 1, backoff: Self.backoff)
        let listing = Self.listing(["a", "b"])
        scheduler.listed(listing)
        guard case .reuse(let again) = scheduler.look(accountId: "u1", stale: false, now: Self.t0) else {
            Issue.record("nothing rang: the last read is taken again")
            return
        }
        #expect(!again.complete, "a listing taken again is no news of what is missing")
        if case .reuse = scheduler.look(accountId: "u1", stale: true, now: Self.t0) { Issue.record("a ring reads again") }
        if case .reuse = scheduler.look(accountId: "u2", stale: false, now: Self.t0) { Issue.record("another account reads again") }

        _ = scheduler.start(from: listing, now: Self.t0) { _ in true }
        if case .nothing = scheduler.look(accountId: "u1", stale: true, now: Self.t0) {} else {
            Issue.record("the one slot is taken and no retry waits: nothing to look for")
        }
    }

    /// An ended transfer counts as downloading until its event is out, and the event does not count it.
    @Test func anEndedTransferLeavesTheCountsOnlyWithItsEvent() {
        var scheduler = DownloadScheduler(slots: 4, backoff: Self.backoff)
        _ = scheduler.start(from: Self.listing(["a", "b"]), now: Self.t0) { _ in true }
        scheduler.progressed("unsplash:b", bytes: 5, total: 100)
        scheduler.succeeded("unsplash:a", bytes: 40)
        #expect(scheduler.progress(announced: false).active == 2)
        let event = scheduler.progress(announced: true)
        #expect(event.active == 1 && event.finished == 1 && event.bytes == 45)
        scheduler.end("unsplash:a")
        #expect(scheduler.progress(announced: false) == event)
        #expect(scheduler.state(of: "unsplash:b") == .downloading(bytes: 5, total: 100))
        #expect(scheduler.state(of: "unsplash:a") == nil)
    }

    @Test func thumbnailsTakeOnlyTheSlotsLeftFree() {
        var scheduler = DownloadScheduler(slots: 2, backoff: Self.backoff)
        scheduler.thumbnails.add(["unsplash:x", "unsplash:y", "unsplash:z"])
        _ = scheduler.start(from: Self.listing(["a"]), now: Self.t0) { _ in true }
        #expect(scheduler.thumbnailCandidates() == ["unsplash:x", "unsplash:y", "unsplash:z"])
        let started = scheduler.startThumbnails([("unsplash:x", nil), ("unsplash:y", Self.job("y")), ("unsplash:z", Self.job("z"))]) { _ in true }
        #expect(started.map(\.remoteId) == ["y"], "one slot was free")
        #expect(scheduler.isActive("thumb:unsplash:y"))
        #expect(scheduler.thumbnails.photoIds == ["unsplash:z"], "x was there already; y started")
        #expect(scheduler.thumbnailCandidates().isEmpty, "no slot free")
    }
}
