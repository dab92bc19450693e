import CCurl
import Foundation
import Synchronization

/// Runs every transfer of one client on one dedicated thread that blocks in `curl_multi_poll`.
///
/// Why a thread of its own: libcurl's multi interface wants a loop that sleeps until a socket or timer is
/// due. Blocking like that on Swift's cooperative pool would starve other tasks, so the loop lives outside it
/// and talks to tasks only through a locked command queue plus `curl_multi_wakeup`. When nothing is in
/// flight it sleeps without a timeout: idle means asleep.
final class TransferEngine: @unchecked Sendable {
    private enum Command {
        case add(Transfer)
        case cancel(Transfer)
    }

    private struct Inbox {
        var commands: [Command] = []
        var shuttingDown = false
    }

    private let multi: CurlMultiHandle
    private let inbox = Mutex(Inbox())
    /// Engine thread only. Keyed by easy handle pointer, which is what `curl_multi_info_read` reports.
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    /// Loop turns so far; lets tests check that an idle engine really sleeps.
    let iterations = Atomic<Int>(0)

    /// Nothing received for this long ends a transfer (`nudgeStalled`).
    private let stallLimit: Duration

    /// Told when the engine had to end a transfer past its timeout itself (libcurl had not).
    private let overdue: @Sendable (String) -> Void

    /// The rates all clients' transfers keep under together.
    private let bandwidth: BandwidthLimits?

    init(
        multi: CurlMultiHandle, stallLimit: Duration, bandwidth: BandwidthLimits? = nil,
        overdue: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.multi = multi
        self.stallLimit = stallLimit
        self.bandwidth = bandwidth
        self.overdue = overdue
        let thread = Thread { [self] in run() }
        thread.name = "splashd-http"
        thread.start()
    }

    /// Queues a transfer. Returns false once the engine is shutting down.
    func submit(_ transfer: Transfer) -> Bool {
        let accepted = inbox.withLock { inbox in
            guard !inbox.shuttingDown else { return false }
            inbox.commands.append(.add(transfer))
            return true
        }
        if accepted { multi.wakeup() }
        return accepted
    }

    /// Removes a transfer whether it is queued, running or already finished (then nothing happens).
    /// The flag covers a cancel that races ahead of the transfer's own `add` command.
    func cancel(_ transfer: Transfer) {
        transfer.cancelRequested.store(true, ordering: .sequentiallyConsistent)
        inbox.withLock { $0.commands.append(.cancel(transfer)) }
        multi.wakeup()
    }

    /// Fails every queued and running transfer with `.shutdown`, then lets the thread end.
    func shutdown() {
        inbox.withLock { $0.shuttingDown = true }
        multi.wakeup()
    }

    private func run() {
        while true {
            iterations.add(1, ordering: .relaxed)
            let stopping = takeCommands()
            if stopping {
                for transfer in Array(active.values) { remove(transfer, with: .shutdown) }
                return
            }
            _ = multi.perform()
            for (easy, code) in multi.completed() {
                guard let transfer = active.removeValue(forKey: easy) else { continue }
                multi.remove(transfer.easy)
                transfer.finish(code)
            }
            nudgeStalled()
            // With transfers in flight libcurl shortens this to its own next timer; the 1 s cap is only a
            // safety net (and the pace of `nudgeStalled`). With none, sleep until `wakeup`. Transfers paused
            // for the rate are resumed when the bucket has bytes again.
            let timeout = active.isEmpty ? Int32.max : min(1000, resumePausedForRate())
            multi.poll(timeoutMs: timeout)
        }
    }

    /// Carries out the commands sent since the last turn; whether the engine is shutting down. A function
    /// of its own so that the commands (each holding its transfer, and a download's transfer its file
    /// and the file's lock) are let go before the loop sleeps: held in the loop's own scope they lived
    /// through `poll`, which waits without end once nothing is active — a download that failed in the
    /// turn that added it kept its `.part` locked, and every later attempt failed with EAGAIN for good.
    private func takeCommands() -> Bool {
        let (commands, stopping) = inbox.withLock { inbox in
            defer { inbox.commands.removeAll() }
            return (inbox.commands, inbox.shuttingDown)
        }
        for command in commands {
            switch command {
            case .add(let transfer): add(transfer)
            case .cancel(let transfer): remove(transfer, with: .cancelled)
            }
        }
        return stopping
    }

    /// Debian 12's libcurl 7.88 can leave an HTTP/2 stream unserved after its data has been read off the
    /// shared socket while another stream was being processed: the socket stays quiet, so nothing wakes
    /// the stream, and only the low-speed timer ended it (seen 1 run in 6 with 16 parallel downloads from
    /// nghttpd). A connected transfer quiet for a second is nudged (pause and resume), which makes libcurl
    /// read what is buffered for it; a transfer that is merely slow loses nothing by it.
    ///
    /// A resume also restarts libcurl's own low-speed clock, so the limit is kept here instead: nothing
    /// received for `stallLimit` ends the transfer with `.timeout`, as libcurl would have. So does a
    /// transfer still here a second past its own request timeout, whatever its state; and one the engine
    /// times alone (`Transfer.timedByEngine`) once its time less its pauses for the rate is past it.
    private func nudgeStalled() {
        let now = ContinuousClock.now
        for transfer in Array(active.values) {
            // A request never outlives its timeout. libcurl 7.88 can hold a transfer waiting for a
            // connection slot (CURLMOPT_MAX_HOST_CONNECTIONS, CURLOPT_PIPEWAIT) past CURLOPT_TIMEOUT_MS
            // after its connections were reset (curl/curl#6744): seen as a pull that held the sync gate
            // for over a minute after a network cut, so the engine ends such a transfer itself.
            if let timeout = transfer.timeout, transfer.timedByEngine {
                if let counted = transfer.timeCounted(at: now), counted > timeout {
                    remove(transfer, with: .timeout)
                    continue
                }
            } else if let timeout = transfer.timeout, let added = transfer.addedAt, now - added > timeout + Self.overdueGrace {
                overdue("a request outlived its timeout of \(timeout) (\(transfer.easy.hasConnection ? "connected" : "waiting for a connection")); ended")
                remove(transfer, with: .timeout)
                continue
            }
            // Transfers still waiting for a connection are left to libcurl's connect timeout; one paused for
            // the rate waits for the bucket, not for its server.
            guard transfer.lastActivity != nil || transfer.easy.hasConnection, transfer.pausedForRate == nil else { continue }
            guard let last = transfer.lastActivity else {
                transfer.lastActivity = now  // just connected: the quiet time starts here
                continue
            }
            let quiet = now - last
            if quiet >= stallLimit {
                remove(transfer, with: .timeout)
            } else if quiet >= .seconds(1), transfer.lastNudge.map({ now - $0 >= .seconds(1) }) ?? true {
                transfer.easy.nudge()
                transfer.lastNudge = now
            }
        }
    }

    /// Resumes the transfers paused for the rate once their direction's bucket has bytes again, the
    /// longest paused first (each resume may take them all and pause the next again); milliseconds until
    /// it is worth looking again.
    private func resumePausedForRate() -> Int32 {
        guard let bandwidth else { return 1000 }
        var paused = active.values.filter { $0.pausedForRate != nil }
        guard !paused.isEmpty else { return 1000 }
        paused.sort { ($0.pausedSince ?? .now) < ($1.pausedSince ?? .now) }
        for transfer in paused {
            guard let direction = transfer.pausedForRate, bandwidth.untilAdmitting(direction) == .zero else { continue }
            transfer.pausedForRate = nil
            // Waiting for the rate is not a stall.
            transfer.lastActivity = .now
            transfer.easy.resume()
        }
        // Those still paused, and those a resume paused again at once.
        var wait = Duration.seconds(1)
        for transfer in paused {
            if let direction = transfer.pausedForRate { wait = min(wait, bandwidth.untilAdmitting(direction)) }
        }
        return Int32(clamping: max(1, wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000))
    }

    private func add(_ transfer: Transfer) {
        if transfer.cancelRequested.load(ordering: .sequentiallyConsistent) {
            return transfer.complete(.failure(.cancelled))
        }
        let code = multi.add(transfer.easy)
        guard code == CURLM_OK else {
            let message = String(cString: curl_multi_strerror(code))
            return transfer.complete(.failure(.network(curlCode: Int32(code.rawValue), message: message)))
        }
        transfer.addedAt = .now
        active[transfer.easy.pointer] = transfer
        transfer.bandwidth = bandwidth
    }

    /// How long past its own timeout a transfer may live before the engine ends it: libcurl's timer
    /// normally fires first.
    static let overdueGrace = Duration.seconds(1)

    private func remove(_ transfer: Transfer, with error: HTTPError) {
        guard active.removeValue(forKey: transfer.easy.pointer) != nil else { return }
        multi.remove(transfer.easy)
        transfer.complete(.failure(error))
    }
}
