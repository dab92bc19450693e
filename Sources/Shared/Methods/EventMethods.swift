import Foundation

/// `events.subscribe`: the connection starts receiving `event` notifications. The answer carries a
/// status snapshot taken atomically with subscribing: every change after the snapshot arrives as an
/// event with `seq` greater than the snapshot's, and none falls between.
public struct SubscribeRequest: RPCRequest {
    public typealias Result = SubscribeResult
    public static let method = "events.subscribe"
    public static let summary = "Starts event notifications on this connection; answers with a snapshot taken atomically with subscribing."
    public static let parameters = [
        ParameterDoc("types", "array of string", "Only these event types (default: all). See daemon.describe's events."),
    ]
    public static let errors: [ErrorKind] = [.invalidInput, .busy]
    public static let example = SubscribeRequest(types: [EventType.photoChanged.rawValue])
    public static let resultExample = SubscribeResult(subscription: 1, seq: 41, snapshot: DaemonStatus.example)

    public var types: [String]?

    public init(types: [String]? = nil) {
        self.types = types
    }

    public func validate() throws(RPCError) {
        for type in types ?? [] where EventType(rawValue: type) == nil {
            throw .invalidInput(.unknownEventType(type: type, known: EventType.allCases.map(\.rawValue)), field: "types")
        }
    }
}

public struct SubscribeResult: Codable, Sendable, Equatable {
    public var subscription: Int
    /// The sequence number the snapshot reflects; events carry larger ones.
    public var seq: UInt64
    public var snapshot: DaemonStatus

    public init(subscription: Int, seq: UInt64, snapshot: DaemonStatus) {
        self.subscription = subscription
        self.seq = seq
        self.snapshot = snapshot
    }
}

/// `events.unsubscribe`: stops notifications for one subscription on this connection.
public struct UnsubscribeRequest: RPCRequest {
    public typealias Result = UnsubscribeResult
    public static let method = "events.unsubscribe"
    public static let summary = "Stops the notifications of one subscription on this connection."
    public static let parameters = [ParameterDoc("subscription", "integer", required: true, "The id events.subscribe returned.")]
    public static let errors: [ErrorKind] = [.notFound]
    public static let example = UnsubscribeRequest(subscription: 1)
    public static let resultExample = UnsubscribeResult(unsubscribed: true)

    public var subscription: Int

    public init(subscription: Int) {
        self.subscription = subscription
    }
}

public struct UnsubscribeResult: Codable, Sendable, Equatable {
    public var unsubscribed: Bool
    public init(unsubscribed: Bool) {
        self.unsubscribed = unsubscribed
    }
}
