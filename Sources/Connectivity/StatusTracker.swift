import Foundation
import Shared

/// Holds the current `ConnectivityStatus` and says when a verdict changes it. `since` is when the state last
/// changed; a new reason within the same state is a change (it is shown) but keeps `since`.
struct StatusTracker: Sendable {
    private(set) var status: ConnectivityStatus

    init(_ initial: ConnectivityStatus) { status = initial }

    /// Applies a verdict; returns the new status if state or reason changed, nil otherwise.
    mutating func apply(_ verdict: ProbeVerdict, at date: Date) -> ConnectivityStatus? {
        guard verdict.state != status.state || verdict.text != status.text else { return nil }
        let since = verdict.state == status.state ? status.since : date
        status = ConnectivityStatus(state: verdict.state, text: verdict.text, since: since)
        return status
    }
}
