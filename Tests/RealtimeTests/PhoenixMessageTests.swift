@testable import Realtime
import Shared
import Testing

/// Realtime's frames as Supabase's Realtime server speaks them (Phoenix channels, protocol 1.0), both ways.
@Suite struct PhoenixMessageTests {
    @Test func aJoinAsksForDatabaseChangesOnlyWithTheUsersToken() throws {
        let join = PhoenixMessage.join(
            topic: PhoenixMessage.topic("splashd"),
            changes: [ChangeSubscription(table: "likes", filter: "user_id=eq.u1"), ChangeSubscription(table: "profiles", filter: "id=eq.u1")],
            accessToken: "jwt", ref: "1")
        #expect(try join.frame() == #"""
            {"event":"phx_join","join_ref":"1","payload":{"access_token":"jwt","config":{"broadcast":{"ack":false,"self":false},\#
            "postgres_changes":[{"event":"*","filter":"user_id=eq.u1","schema":"public","table":"likes"},\#
            {"event":"*","filter":"id=eq.u1","schema":"public","table":"profiles"}],"presence":{"enabled":false},"private":false}},\#
            "ref":"1","topic":"realtime:splashd"}
            """#)
    }

    @Test func heartbeatAndTokenAndLeave() throws {
        #expect(try PhoenixMessage.heartbeat(ref: "7").frame() == #"{"event":"heartbeat","join_ref":null,"payload":{},"ref":"7","topic":"phoenix"}"#)
        #expect(try PhoenixMessage.accessToken("new", topic: "realtime:s", ref: "8", joinRef: "1").frame()
            == #"{"event":"access_token","join_ref":"1","payload":{"access_token":"new"},"ref":"8","topic":"realtime:s"}"#)
        #expect(try PhoenixMessage.leave(topic: "realtime:s", ref: "9", joinRef: "1").frame()
            == #"{"event":"phx_leave","join_ref":"1","payload":{},"ref":"9","topic":"realtime:s"}"#)
    }

    @Test func aChangeKeepsItsRecordsKeysAsSent() throws {
        let frame = #"""
            {"topic":"realtime:splashd","event":"postgres_changes","ref":null,"payload":{"ids":[1234],"data":{"schema":"public",
            "table":"likes","commit_timestamp":"2025-11-19T00:22:40.877Z","type":"UPDATE","columns":[{"name":"photo_id","type":"text"}],
            "record":{"photo_id":"unsplash:x","user_id":"u1","deleted_at":"2025-11-19T00:22:40Z"},"old_record":{"id":"r1"},"errors":null}}}
            """#
        let inbound = try RealtimeInbound(frame: frame)
        guard case .change(let topic, let ids, let change) = inbound else {
            Issue.record("not a change: \(inbound)")
            return
        }
        #expect(topic == "realtime:splashd" && ids == [1234])
        #expect(change.table == "likes" && change.kind == .update && change.commitTimestamp == "2025-11-19T00:22:40.877Z")
        #expect(change.record["photo_id"] == .string("unsplash:x") && change.record["deleted_at"] == .string("2025-11-19T00:22:40Z"))
        #expect(change.oldRecord == ["id": .string("r1")])
    }

    /// What the daemon reads of a change: of its row only the columns its filters compare; the rest
    /// (nested JSON, the column list) is skipped, and the envelope is read as before.
    @Test func aChangeReadForItsFilterColumnsKeepsOnlyThose() throws {
        let frame = #"""
            {"topic":"realtime:splashd","event":"postgres_changes","ref":null,"payload":{"ids":[7,8],"data":{"schema":"public",
            "table":"photos","commit_timestamp":"2025-11-19T00:22:40.877Z","type":"INSERT","columns":[{"name":"user_id","type":"uuid"},
            {"name":"urls","type":"jsonb"}],"record":{"user_id":"u1","photo_id":"unsplash:x","width":4000,"urls":{"raw":"https://x/r"},
            "deleted_at":null},"old_record":{},"errors":null}}}
            """#
        let inbound = try RealtimeInbound(frame: frame, rowColumns: ["user_id", "id"])
        #expect(inbound == .change(topic: "realtime:splashd", ids: [7, 8], PostgresChange(
            table: "photos", kind: .insert, record: ["user_id": .string("u1")], commitTimestamp: "2025-11-19T00:22:40.877Z")))
        // Read as a whole, the same frame keeps every value.
        guard case .change(_, _, let whole) = try RealtimeInbound(frame: frame) else { Issue.record("not a change"); return }
        #expect(whole.record["urls"] == .object(["raw": .string("https://x/r")]) && whole.record["width"] == .integer(4000))
        #expect(whole.record.count == 5)
    }

    @Test func repliesSystemMessagesAndClosesAreToldApart() throws {
        let reply = try RealtimeInbound(frame: #"""
            {"topic":"realtime:s","event":"phx_reply","ref":"1","join_ref":"1","payload":{"status":"ok",
            "response":{"postgres_changes":[{"id":1234,"event":"*","schema":"public","table":"likes","filter":"user_id=eq.u1"}]}}}
            """#)
        guard case .reply(let ref, _, let ok, let response) = reply else {
            Issue.record("not a reply: \(reply)")
            return
        }
        #expect(ref == "1" && ok)
        #expect(response != .null)
        let refused = try RealtimeInbound(frame:
            #"{"topic":"realtime:s","event":"phx_reply","ref":"2","payload":{"status":"error","response":{"reason":"InvalidJWTExpiration"}}}"#)
        #expect({ if case .reply(_, _, false, _) = refused { true } else { false } }())
        #expect(try RealtimeInbound(frame:
            #"{"topic":"realtime:s","event":"system","payload":{"status":"ok","extension":"postgres_changes","message":"Subscribed to PostgreSQL","channel":"s"}}"#)
            == .system(topic: "realtime:s", ok: true, message: "Subscribed to PostgreSQL"))
        #expect(try RealtimeInbound(frame: #"{"topic":"realtime:s","event":"phx_error","payload":{}}"#)
            == .closed(topic: "realtime:s", errored: true))
        #expect(try RealtimeInbound(frame: #"{"topic":"realtime:s","event":"presence_state","payload":{}}"#)
            == .ignored(topic: "realtime:s", event: "presence_state"))
    }

    @Test func badFramesAreErrorsNotCrashes() {
        #expect(throws: (any Error).self) { try RealtimeInbound(frame: "not json") }
        #expect(throws: (any Error).self) { try RealtimeInbound(frame: #"{"topic":1}"#) }
        #expect(throws: RealtimeProtocolError.self) {
            try RealtimeInbound(frame: #"{"topic":"t","event":"postgres_changes","payload":{"data":{"type":"TRUNCATE","table":"likes"}}}"#)
        }
        #expect(throws: RealtimeProtocolError.self) { try RealtimeInbound(frame: #"{"topic":"t","event":"phx_reply","payload":{}}"#) }
        #expect(throws: RealtimeProtocolError.malformed("postgres_changes without data")) {
            try RealtimeInbound(frame: #"{"topic":"t","event":"postgres_changes","payload":{"ids":[1]}}"#, rowColumns: ["user_id"])
        }
        #expect(throws: RealtimeProtocolError.malformed("a change without its table or type")) {
            try RealtimeInbound(frame: #"{"topic":"t","event":"postgres_changes","payload":{"data":{"type":"INSERT","table":7}}}"#)
        }
        #expect(throws: (any Error).self) { try RealtimeInbound(frame: #"{"topic":"t","payload":{}}"#) }
    }

    @Test func rejoinWaitsOneTwoFiveThenTenSeconds() {
        var schedule = RejoinSchedule()
        #expect((0..<6).map { _ in schedule.failed() } == [.seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(10), .seconds(10)])
        schedule.joined()
        #expect(schedule.failed() == .seconds(1))
    }

    /// A change the channel asked for is one its filter admits: `eq` the value it names, `neq` any other
    /// (this device's own writes, `acted_by=neq.<device>`); a row without the column is left to the server.
    @Test func aFilterAdmitsWhatItNamesAndANeqFilterAllButIt() {
        let own = ChangeSubscription(table: "likes", filter: "acted_by=neq.d1")
        #expect(!own.admits(["acted_by": .string("d1")]))
        #expect(own.admits(["acted_by": .string("d2")]))
        #expect(own.admits(["acted_by": .string("")]), "a change made by no device's push: a web edit, an older client")
        #expect(own.admits(["user_id": .string("u1")]))
        let mine = ChangeSubscription(table: "edits", filter: "user_id=eq.u1")
        #expect(mine.admits(["user_id": .string("u1")]) && !mine.admits(["user_id": .string("u2")]))
        #expect(ChangeSubscription(table: "profiles", filter: "id=eq.7").admits(["id": .integer(7)]))
        #expect(ChangeSubscription(table: "user_stats").admits([:]))
    }

    /// splashd's channel: every table it follows, the account's rows, and of the likes and the photos'
    /// rows none of this device's own writes.
    @Test func theChannelAsksForTheAccountsRowsButThisDevicesOwnWrites() {
        let asked = RealtimeService.subscriptions(userId: "u1", device: "d1")
        #expect(asked.map(\.table) == ["likes", "edits", "photos", "profiles", "user_stats"])
        let likes = asked[0], photos = asked[2]
        #expect(!likes.admits(["acted_by": .string("d1")]) && likes.admits(["acted_by": .string("d2")]))
        #expect(!photos.admits(["written_by": .string("d1")]) && photos.admits(["written_by": .string("")]))
        #expect(asked[1].filter == "user_id=eq.u1" && asked[3].filter == "id=eq.u1")
    }
}
