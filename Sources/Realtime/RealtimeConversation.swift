import Shared
import Support

/// The channel's side of one socket, without the socket: what to send when it opens, what each frame
/// from the server calls for, and what is due when (heartbeats, their replies, rejoins, a new
/// token). `RealtimeService` does the I/O and carries out the actions; tests drive this directly.
public struct RealtimeConversation: Sendable {
    public enum Action: Sendable, Equatable {
        case send(PhoenixMessage)
        /// The server joined the channel: changes flow from here on; time for one catch-up pull.
        case joined
        /// A row of `table` changed on the server.
        case changed(table: String)
        /// The channel is down until the rejoin at the instant given (phx_close, phx_error, a refused join).
        case rejoinScheduled(reason: String, at: ContinuousClock.Instant)
        /// The server reported an error that leaves the channel up (an extension's; it retries by itself).
        case serverError(String)
        /// A change this channel did not ask for (another table, another user's row): not acted on.
        case ignoredChange(table: String)
    }

    /// Why a socket is given up: the caller closes it and reconnects after its backoff.
    public struct Ended: Error, Equatable, CustomStringConvertible {
        public let text: DaemonText
        public var description: String { text.english }

        public init(_ text: DaemonText) {
            self.text = text
        }
    }

    public let topic: String
    public let subscriptions: [ChangeSubscription]
    public var heartbeatEvery: Duration = .seconds(25)
    public var replyWithin: Duration = .seconds(10)
    public var joinWithin: Duration = .seconds(15)

    public private(set) var live = false
    private var token: String
    private var lastRef = 0
    private var joinRef: String?
    private var joinSentAt: ContinuousClock.Instant?
    private var heartbeatDue: ContinuousClock.Instant
    private var pendingHeartbeat: (ref: String, sentAt: ContinuousClock.Instant)?
    private var rejoinAt: ContinuousClock.Instant?
    private var rejoin = RejoinSchedule()
    /// When the channel last became live. Only a channel that stayed up `stableAfter` starts the
    /// rejoin steps over: a server that closes every channel it joins is rejoined on the steps, not
    /// every second.
    private var joinedAt: ContinuousClock.Instant?
    public var stableAfter: Duration = .seconds(10)

    public init(topic: String, subscriptions: [ChangeSubscription], token: String, now: ContinuousClock.Instant) {
        self.topic = topic
        self.subscriptions = subscriptions
        self.token = token
        self.heartbeatDue = now + heartbeatEvery
    }

    /// The socket is open: join.
    public mutating func opened(now: ContinuousClock.Instant) -> [Action] {
        heartbeatDue = now + heartbeatEvery
        return [join(now: now)]
    }

    /// What a frame from the server calls for.
    public mutating func received(_ inbound: RealtimeInbound, now: ContinuousClock.Instant) throws(Ended) -> [Action] {
        switch inbound {
        case .reply(let ref, _, _, _) where ref == pendingHeartbeat?.ref:
            pendingHeartbeat = nil
            return []
        case .reply(let ref, let topic, let ok, let response) where ref == joinRef && topic == self.topic:
            joinSentAt = nil
            if ok {
                live = true
                joinedAt = now
                return [.joined]
            }
            let reason = Self.reason(response)
            // A token the server will never take (malformed, unauthorized) would be refused again: the
            // socket is given up and the caller's backoff decides when to try, with whatever token the
            // session has by then. An expired one is refreshed by then; rejoin after the usual step.
            if !reason.hasPrefix("InvalidJWTExpiration") {
                throw Ended(.liveJoinRefused(reason: reason))
            }
            return [scheduleRejoin(reason: DaemonText.liveJoinRefused(reason: reason).english, now: now)]
        case .change(let topic, _, let change) where topic == self.topic && live:
            let wanted = subscriptions.contains { $0.table == change.table && $0.admits(change.record.isEmpty ? change.oldRecord : change.record) }
            return [wanted ? .changed(table: change.table) : .ignoredChange(table: change.table)]
        case .closed(let topic, let errored) where topic == self.topic:
            if let joinedAt, now - joinedAt >= stableAfter { rejoin.joined() }
            joinedAt = nil
            live = false
            joinRef = nil
            joinSentAt = nil
            return [scheduleRejoin(reason: errored ? "the server errored the channel" : "the server closed the channel", now: now)]
        case .system(let topic, false, let message) where topic == self.topic:
            return [.serverError(message)]
        default:
            return []
        }
    }

    /// What is due at `now`: the join's or a heartbeat's reply overdue ends the socket; a heartbeat,
    /// a rejoin, or the session's new token (`token`) goes out.
    public mutating func tick(now: ContinuousClock.Instant, token current: String) throws(Ended) -> [Action] {
        if let pendingHeartbeat, now - pendingHeartbeat.sentAt >= replyWithin {
            throw Ended(.liveHeartbeatUnanswered(seconds: replyWithin.timeInterval))
        }
        if let joinSentAt, now - joinSentAt >= joinWithin {
            throw Ended(.liveJoinUnanswered(seconds: joinWithin.timeInterval))
        }
        var actions: [Action] = []
        if current != token {
            token = current
            if live, let joinRef { actions.append(.send(.accessToken(current, topic: topic, ref: nextRef(), joinRef: joinRef))) }
        }
        if let rejoinAt, now >= rejoinAt {
            self.rejoinAt = nil
            actions.append(join(now: now))
        }
        if now >= heartbeatDue, pendingHeartbeat == nil {
            let ref = nextRef()
            pendingHeartbeat = (ref, now)
            heartbeatDue = now + heartbeatEvery
            actions.append(.send(.heartbeat(ref: ref)))
        }
        return actions
    }

    /// When `tick` next has something to do.
    public var nextDeadline: ContinuousClock.Instant {
        var deadline = heartbeatDue
        if let pendingHeartbeat { deadline = min(deadline, pendingHeartbeat.sentAt + replyWithin) }
        if let joinSentAt { deadline = min(deadline, joinSentAt + joinWithin) }
        if let rejoinAt { deadline = min(deadline, rejoinAt) }
        return deadline
    }

    private mutating func join(now: ContinuousClock.Instant) -> Action {
        let ref = nextRef()
        joinRef = ref
        joinSentAt = now
        return .send(.join(topic: topic, changes: subscriptions, accessToken: token, ref: ref))
    }

    private mutating func scheduleRejoin(reason: String, now: ContinuousClock.Instant) -> Action {
        let at = now + rejoin.failed()
        rejoinAt = at
        return .rejoinScheduled(reason: reason, at: at)
    }

    private mutating func nextRef() -> String {
        lastRef += 1
        return String(lastRef)
    }


    private static func reason(_ response: JSONValue) -> String {
        response.objectValue?["reason"]?.stringValue ?? "no reason given"
    }
}
