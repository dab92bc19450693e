import Shared
import Store
import Sync

extension SyncResult {
    /// `sync.now` without waiting: the sync has started; the counts are the queue's as it stands.
    init(started values: DaemonState.Values) {
        let outbox = values.outbox
        self.init(
            pushed: 0, rejected: outbox.rejected, pending: outbox.pending, inFlight: outbox.inFlight,
            duplicates: outbox.duplicates, online: values.connectivity.state != .offline, drained: outbox.pending + outbox.inFlight == 0)
    }

    /// `sync.now --wait`: how the wait ended and what is left.
    init(_ report: SyncService.Report, online: Bool) {
        let (outcome, reason): (SyncResult.Outcome, String?) = switch report.outcome {
        case .drained: (.drained, nil)
        case .rejected: (.rejected, nil)
        case .offline(let why): (.offline, why)
        case .timedOut(let why): (.timedOut, why)
        }
        self.init(
            pushed: report.pushed, rejected: report.left.rejected, pending: report.left.pending, inFlight: report.left.inFlight,
            duplicates: report.left.held > 0 ? report.left.held : nil, online: online, drained: report.left.toSend == 0, outcome: outcome, reason: reason)
    }
}
