import Foundation
import Supabase
import Support

/// When the session manager next refreshes or confirms the session, and how long it waits after
/// failures: `Backoff.requests` (1 s doubling to 5 min), a server's Retry-After winning when longer.
/// A failed refresh is remembered: until its backoff ends, callers get that failure instead of a new
/// refresh (a storm of requests during an outage does not become a storm of refreshes). A failed
/// confirmation only postpones the next attempt.
struct RefreshSchedule {
    private(set) var failures = 0
    private(set) var retryAt: Date?
    private var lastFailure: BackendError?

    /// A refresh, sign-in or confirmation went through: nothing is owed.
    mutating func succeeded() {
        self = RefreshSchedule()
    }

    /// A refresh failed; returns the seconds until the next attempt.
    mutating func refreshFailed(_ error: BackendError, now: Date = Date()) -> TimeInterval {
        lastFailure = error
        return postpone(error, now: now)
    }

    /// A restored session's confirmation failed on the way; returns the seconds until it is asked again.
    mutating func confirmationFailed(_ error: BackendError, now: Date = Date()) -> TimeInterval {
        postpone(error, now: now)
    }

    /// The backend answers again: whatever is owed goes now, and the backoff starts over.
    mutating func retryNow() {
        failures = 0
        retryAt = nil
    }

    /// The failure a caller gets instead of a refresh while the backoff after it runs.
    func pendingFailure(now: Date = Date()) -> BackendError? {
        guard let retryAt, retryAt > now else { return nil }
        return lastFailure
    }

    /// When to act next for `session`: the retry after a failure, at once for an unconfirmed session,
    /// else when its token is due for refresh — at most once a second, whatever lifetime the server
    /// hands out.
    func nextDue(for session: Session, confirmed: Bool, now: Date = Date()) -> Date {
        if let retryAt { return retryAt }
        if !confirmed { return now }
        return max(session.refreshDueAt, session.obtainedAt.addingTimeInterval(1))
    }

    private mutating func postpone(_ error: BackendError, now: Date) -> TimeInterval {
        failures += 1
        let delay = Backoff.requests.delay(afterFailures: failures, retryAfter: error.serverError?.retryAfterDuration).timeInterval
        retryAt = now.addingTimeInterval(delay)
        return delay
    }
}
