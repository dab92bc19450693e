import Foundation
import Shared

/// What a frame from the server means to the client.
public enum RealtimeInbound: Sendable, Equatable {
    /// The answer to a message the client sent (join, heartbeat, leave), by its ref.
    case reply(ref: String, topic: String, ok: Bool, response: JSONValue)
    /// A channel's status from the server (`Subscribed to PostgreSQL`, or an extension's error).
    case system(topic: String, ok: Bool, message: String)
    /// A row changed, for the subscriptions `ids` of the join reply.
    case change(topic: String, ids: [Int64], PostgresChange)
    /// The server closed or errored the channel: rejoin after the backoff.
    case closed(topic: String, errored: Bool)
    /// Anything else (presence, broadcast, an event this client does not use).
    case ignored(topic: String, event: String)

    public init(_ message: PhoenixMessage) throws(RealtimeProtocolError) {
        let payload = message.payload.objectValue ?? [:]
        switch message.event {
        case "phx_reply":
            guard let ref = message.ref else { throw .malformed("a phx_reply without a ref") }
            self = .reply(
                ref: ref, topic: message.topic, ok: payload["status"]?.stringValue == "ok", response: payload["response"] ?? .null)
        case "system":
            self = .system(
                topic: message.topic, ok: payload["status"]?.stringValue == "ok", message: payload["message"]?.stringValue ?? "")
        case "postgres_changes":
            guard let data = payload["data"] else { throw .malformed("postgres_changes without data") }
            let ids = (payload["ids"]?.arrayValue ?? []).compactMap(\.integerValue)
            self = .change(topic: message.topic, ids: ids, try PostgresChange(data))
        case "phx_close":
            self = .closed(topic: message.topic, errored: false)
        case "phx_error":
            self = .closed(topic: message.topic, errored: true)
        default:
            self = .ignored(topic: message.topic, event: message.event)
        }
    }
}

/// One row change as Realtime sends it: `{schema, table, type, record, old_record, commit_timestamp}`.
/// `oldRecord` holds the primary key only unless the table's replica identity is full.
public struct PostgresChange: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case insert = "INSERT", update = "UPDATE", delete = "DELETE"
    }

    public var schema: String
    public var table: String
    public var kind: Kind
    public var record: [String: JSONValue]
    public var oldRecord: [String: JSONValue]
    public var commitTimestamp: String?

    public init(_ data: JSONValue) throws(RealtimeProtocolError) {
        guard let object = data.objectValue,
              let table = object["table"]?.stringValue,
              let type = object["type"]?.stringValue
        else { throw .malformed("a change without its table or type") }
        guard let kind = Kind(rawValue: type) else { throw .malformed("a change of unknown type \(type)") }
        self.schema = object["schema"]?.stringValue ?? "public"
        self.table = table
        self.kind = kind
        self.record = object["record"]?.objectValue ?? [:]
        self.oldRecord = object["old_record"]?.objectValue ?? [:]
        self.commitTimestamp = object["commit_timestamp"]?.stringValue
    }
}

public enum RealtimeProtocolError: Error, Equatable, CustomStringConvertible {
    case malformed(String)

    public var description: String {
        switch self {
        case .malformed(let what): "an unreadable Realtime frame: \(what)"
        }
    }
}
