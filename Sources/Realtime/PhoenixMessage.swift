import Foundation
import Shared

/// One message of Supabase Realtime's Phoenix protocol, vsn 1.0.0: a JSON text frame
/// `{"topic","event","payload","ref","join_ref"}`, as supabase-js and realtime-py send them. Pure data: the
/// socket, the heartbeat and the channel's state live elsewhere.
public struct PhoenixMessage: Encodable, Sendable, Equatable {
    public var topic: String
    public var event: String
    public var payload: JSONValue
    /// Set on what the client sends and on the server's replies to it; null on pushed changes.
    public var ref: String?
    /// The ref of the join the message belongs to.
    public var joinRef: String?

    public init(topic: String, event: String, payload: JSONValue, ref: String? = nil, joinRef: String? = nil) {
        self.topic = topic
        self.event = event
        self.payload = payload
        self.ref = ref
        self.joinRef = joinRef
    }

    /// The frame's text, keys sorted. A plain JSON encoder, not the control protocol's: payload keys
    /// (`access_token`) must pass through as they are, not be re-cased. (Frames from the server are
    /// read by `RealtimeInbound`.)
    public func frame() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    enum CodingKeys: String, CodingKey {
        case topic, event, payload, ref
        case joinRef = "join_ref"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(topic, forKey: .topic)
        try container.encode(event, forKey: .event)
        try container.encode(payload, forKey: .payload)
        // Phoenix reads an absent ref and a null one alike; null keeps every frame the same shape.
        try container.encode(ref, forKey: .ref)
        try container.encode(joinRef, forKey: .joinRef)
    }
}

/// A `postgres_changes` subscription of a channel's join: one table's rows, narrowed by a filter
/// (`user_id=eq.<uid>`; Realtime's operators are eq, neq, lt, lte, gt, gte, in).
public struct ChangeSubscription: Sendable, Equatable {
    public var event: String
    public var schema: String
    public var table: String
    public var filter: String?

    public init(table: String, filter: String? = nil, event: String = "*", schema: String = "public") {
        self.event = event
        self.schema = schema
        self.table = table
        self.filter = filter
    }

    /// Whether a row can be one this subscription asked for: the filter's column, when the row has it,
    /// holds the value an `eq` filter names, or another than a `neq` filter names. Other operators are
    /// left to the server.
    func admits(_ row: [String: JSONValue]) -> Bool {
        guard let filter, let column = filterColumn, let actual = row[column] else { return true }
        let text: String? = switch actual {
        case .string(let text): text
        case .integer(let number): String(number)
        default: nil
        }
        if let equals = filter.range(of: "=eq.") { return text == String(filter[equals.upperBound...]) }
        if let differs = filter.range(of: "=neq.") { return text != String(filter[differs.upperBound...]) }
        return true
    }

    /// The column the filter compares (`user_id` of `user_id=eq.<uid>`): of a change's row, the one
    /// value `admits` reads.
    var filterColumn: String? {
        guard let filter, let operatorStart = filter.firstIndex(of: "=") else { return nil }
        return String(filter[..<operatorStart])
    }

    var json: JSONValue {
        var object: [String: JSONValue] = ["event": .string(event), "schema": .string(schema), "table": .string(table)]
        if let filter { object["filter"] = .string(filter) }
        return .object(object)
    }
}

extension PhoenixMessage {
    /// The channel topic for a name of the client's choosing.
    public static func topic(_ name: String) -> String { "realtime:" + name }

    /// `phx_join` for database changes only (no broadcast, no presence), with the user's JWT so that
    /// Realtime applies the account's row level security to every change it sends.
    public static func join(topic: String, changes: [ChangeSubscription], accessToken: String, ref: String) -> PhoenixMessage {
        let config: JSONValue = .object([
            "broadcast": .object(["ack": .bool(false), "self": .bool(false)]),
            "presence": .object(["enabled": .bool(false)]),
            "postgres_changes": .array(changes.map(\.json)),
            "private": .bool(false),
        ])
        return PhoenixMessage(
            topic: topic, event: "phx_join", payload: .object(["config": config, "access_token": .string(accessToken)]),
            ref: ref, joinRef: ref)
    }

    /// The socket's heartbeat, on the `phoenix` topic; answered by a `phx_reply` with the same ref.
    public static func heartbeat(ref: String) -> PhoenixMessage {
        PhoenixMessage(topic: "phoenix", event: "heartbeat", payload: .object([:]), ref: ref)
    }

    /// A refreshed JWT for a joined channel (no reply when accepted).
    public static func accessToken(_ token: String, topic: String, ref: String, joinRef: String) -> PhoenixMessage {
        PhoenixMessage(topic: topic, event: "access_token", payload: .object(["access_token": .string(token)]), ref: ref, joinRef: joinRef)
    }

    public static func leave(topic: String, ref: String, joinRef: String) -> PhoenixMessage {
        PhoenixMessage(topic: topic, event: "phx_leave", payload: .object([:]), ref: ref, joinRef: joinRef)
    }
}
