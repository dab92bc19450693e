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

    /// A frame's text as the server sent it (`PhoenixMessage`'s shape). A change keeps of its row only
    /// the columns named in `rowColumns` (nil: all of them): a change only tells the client that a table
    /// moved, once a subscription's filter admits its row, and the filters compare one column each.
    /// Decoding every value of every row (and the column list each change carries) into `JSONValue`
    /// was a sixth of the daemon's CPU while it pushed 10,000 likes, reading their echo.
    /// Payload keys pass through as sent, not re-cased (plain JSON coders, not the control protocol's).
    public init(frame: String, rowColumns: Set<String>? = nil) throws {
        let decoder = JSONDecoder()
        if let rowColumns { decoder.userInfo[RowValues.columnsKey] = rowColumns }
        let read = try decoder.decode(InboundFrame.self, from: Data(frame.utf8))
        if let change = read.change {
            guard let data = change.data else { throw RealtimeProtocolError.malformed("postgres_changes without data") }
            self = .change(topic: read.topic, ids: (change.ids ?? []).compactMap(\.integerValue), data)
            return
        }
        let payload = read.payload?.objectValue ?? [:]
        switch read.event {
        case "phx_reply":
            guard let ref = read.ref else { throw RealtimeProtocolError.malformed("a phx_reply without a ref") }
            self = .reply(ref: ref, topic: read.topic, ok: payload["status"]?.stringValue == "ok", response: payload["response"] ?? .null)
        case "system":
            self = .system(topic: read.topic, ok: payload["status"]?.stringValue == "ok", message: payload["message"]?.stringValue ?? "")
        case "phx_close":
            self = .closed(topic: read.topic, errored: false)
        case "phx_error":
            self = .closed(topic: read.topic, errored: true)
        default:
            self = .ignored(topic: read.topic, event: read.event)
        }
    }
}

/// A frame as read: its envelope, and its payload read as a change for `postgres_changes` (the frames
/// that come by the thousand), as free-form JSON for every other event.
private struct InboundFrame: Decodable {
    let topic: String
    let event: String
    let ref: String?
    let payload: JSONValue?
    let change: ChangePayload?

    struct ChangePayload: Decodable {
        let ids: [JSONValue]?
        let data: PostgresChange?
    }

    enum CodingKeys: String, CodingKey {
        case topic, event, ref, payload
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        topic = try container.decode(String.self, forKey: .topic)
        event = try container.decode(String.self, forKey: .event)
        ref = try container.decodeIfPresent(String.self, forKey: .ref)
        if event == "postgres_changes" {
            change = try container.decodeIfPresent(ChangePayload.self, forKey: .payload) ?? ChangePayload(ids: nil, data: nil)
            payload = nil
        } else {
            change = nil
            payload = try container.decodeIfPresent(JSONValue.self, forKey: .payload)
        }
    }
}

/// One row change as Realtime sends it: `{schema, table, type, record, old_record, commit_timestamp}`
/// (and `columns`, `errors`, not read). `oldRecord` holds the primary key only unless the table's
/// replica identity is full.
public struct PostgresChange: Sendable, Equatable, Decodable {
    public enum Kind: String, Sendable {
        case insert = "INSERT", update = "UPDATE", delete = "DELETE"
    }

    public var schema: String
    public var table: String
    public var kind: Kind
    /// The row's values, those the frame was read for (`RealtimeInbound.init(frame:rowColumns:)`).
    public var record: [String: JSONValue]
    public var oldRecord: [String: JSONValue]
    public var commitTimestamp: String?

    public init(
        table: String, kind: Kind, record: [String: JSONValue] = [:], oldRecord: [String: JSONValue] = [:],
        schema: String = "public", commitTimestamp: String? = nil
    ) {
        self.schema = schema
        self.table = table
        self.kind = kind
        self.record = record
        self.oldRecord = oldRecord
        self.commitTimestamp = commitTimestamp
    }

    enum CodingKeys: String, CodingKey {
        case schema, table, type, record
        case oldRecord = "old_record"
        case commitTimestamp = "commit_timestamp"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let table = try? container.decodeIfPresent(String.self, forKey: .table),
              let type = try? container.decodeIfPresent(String.self, forKey: .type)
        else { throw RealtimeProtocolError.malformed("a change without its table or type") }
        guard let kind = Kind(rawValue: type) else { throw RealtimeProtocolError.malformed("a change of unknown type \(type)") }
        self.init(
            table: table, kind: kind,
            record: (try? container.decodeIfPresent(RowValues.self, forKey: .record))??.values ?? [:],
            oldRecord: (try? container.decodeIfPresent(RowValues.self, forKey: .oldRecord))??.values ?? [:],
            schema: (try? container.decodeIfPresent(String.self, forKey: .schema)) ?? "public",
            commitTimestamp: try? container.decodeIfPresent(String.self, forKey: .commitTimestamp))
    }
}

/// A row's values as a change carries them: those of the columns in the decoder's `columnsKey` set (all
/// of them without one); the others are skipped unread.
private struct RowValues: Decodable {
    static let columnsKey = CodingUserInfoKey(rawValue: "splashd.realtime.rowColumns")!
    var values: [String: JSONValue] = [:]

    struct Column: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let wanted = decoder.userInfo[Self.columnsKey] as? Set<String>
        let container = try decoder.container(keyedBy: Column.self)
        for column in container.allKeys where wanted?.contains(column.stringValue) ?? true {
            values[column.stringValue] = try container.decode(JSONValue.self, forKey: column)
        }
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
