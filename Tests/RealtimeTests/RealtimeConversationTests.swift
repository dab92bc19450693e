import Realtime
import Shared
import Testing

/// The channel's rules without a socket: join, heartbeats and their replies, rejoins with the steps,
/// refused joins, new tokens, and changes only while joined.
@Suite struct RealtimeConversationTests {
    let start = ContinuousClock.now
    let subscriptions = [ChangeSubscription(table: "likes", filter: "user_id=eq.u1")]

    func conversation() -> RealtimeConversation {
        RealtimeConversation(topic: "realtime:splashd", subscriptions: subscriptions, token: "t1", now: start)
    }

    func reply(_ ref: String, ok: Bool = true, reason: String? = nil) -> RealtimeInbound {
        .reply(ref: ref, topic: "realtime:splashd", ok: ok, response: reason.map { .object(["reason": .string($0)]) } ?? .object([:]))
    }

    func change(_ table: String) throws -> RealtimeInbound {
        .change(topic: "realtime:splashd", ids: [1], PostgresChange(table: table, kind: .insert))
    }

    @Test func opensWithAJoinAndIsLiveOnceItIsAnswered() throws {
        var channel = conversation()
        #expect(channel.opened(now: start) == [.send(.join(topic: "realtime:splashd", changes: subscriptions, accessToken: "t1", ref: "1"))])
        #expect(try channel.received(change("likes"), now: start).isEmpty, "no change counts before the join is answered")
        #expect(try channel.received(reply("1"), now: start) == [.joined])
        #expect(channel.live)
        #expect(try channel.received(change("likes"), now: start) == [.changed(table: "likes")])
        #expect(try channel.received(.change(topic: "realtime:other", ids: [1], PostgresChange(table: "likes", kind: .insert)), now: start).isEmpty)
    }

    @Test func heartbeatsEveryTwentyFiveSecondsAndAnUnansweredOneEndsTheSocket() throws {
        var channel = conversation()
        _ = channel.opened(now: start)
        _ = try channel.received(reply("1"), now: start)
        #expect(try channel.tick(now: start + .seconds(24), token: "t1").isEmpty)
        #expect(channel.nextDeadline == start + .seconds(25))
        #expect(try channel.tick(now: start + .seconds(25), token: "t1") == [.send(.heartbeat(ref: "2"))])
        #expect(try channel.received(reply("2"), now: start + .seconds(26)).isEmpty)
        #expect(try channel.tick(now: start + .seconds(50), token: "t1") == [.send(.heartbeat(ref: "3"))])
        #expect(channel.nextDeadline == start + .seconds(60))
        #expect(throws: RealtimeConversation.Ended.self) { try channel.tick(now: start + .seconds(60), token: "t1") }
    }

    @Test func aJoinNeverAnsweredEndsTheSocket() {
        var channel = conversation()
        _ = channel.opened(now: start)
        #expect(throws: RealtimeConversation.Ended.self) { try channel.tick(now: start + .seconds(15), token: "t1") }
    }

    @Test func aClosedChannelRejoinsAfterOneTwoFiveSeconds() throws {
        var channel = conversation()
        _ = channel.opened(now: start)
        _ = try channel.received(reply("1"), now: start)
        let closed = try channel.received(.closed(topic: "realtime:splashd", errored: true), now: start)
        #expect(closed == [.rejoinScheduled(reason: "the server errored the channel", at: start + .seconds(1))])
        #expect(!channel.live)
        #expect(try channel.received(change("likes"), now: start).isEmpty, "nothing counts while the channel is down")
        #expect(try channel.tick(now: start + .seconds(1), token: "t1") == [.send(.join(topic: "realtime:splashd", changes: subscriptions, accessToken: "t1", ref: "2"))])
        _ = try channel.received(.closed(topic: "realtime:splashd", errored: false), now: start + .seconds(2))
        #expect(channel.nextDeadline == start + .seconds(4), "the second failure waits 2 s")
        #expect(try channel.tick(now: start + .seconds(4), token: "t1").count == 1)
        #expect(try channel.received(reply("3"), now: start + .seconds(4)) == [.joined])
        // Closed again 1 s after that join: the steps go on (5 s), they do not start over.
        #expect(try channel.received(.closed(topic: "realtime:splashd", errored: false), now: start + .seconds(5))
            == [.rejoinScheduled(reason: "the server closed the channel", at: start + .seconds(10))])
        _ = try channel.tick(now: start + .seconds(10), token: "t1")
        _ = try channel.received(reply("4"), now: start + .seconds(10))
        // Up for 10 s, then closed: a channel that held starts the steps over (1 s).
        #expect(try channel.received(.closed(topic: "realtime:splashd", errored: false), now: start + .seconds(20))
            == [.rejoinScheduled(reason: "the server closed the channel", at: start + .seconds(21))])
    }

    @Test func anExpiredTokenRejoinsWithTheNewOneAndABadOneGivesTheSocketUp() throws {
        var channel = conversation()
        _ = channel.opened(now: start)
        let refused = try channel.received(reply("1", ok: false, reason: "InvalidJWTExpiration: token has expired"), now: start)
        #expect(refused == [.rejoinScheduled(reason: "the join was refused: InvalidJWTExpiration: token has expired", at: start + .seconds(1))])
        #expect(try channel.tick(now: start + .seconds(1), token: "t2") == [.send(.join(topic: "realtime:splashd", changes: subscriptions, accessToken: "t2", ref: "2"))])
        #expect(throws: RealtimeConversation.Ended(.liveJoinRefused(reason: "Unauthorized: no"))) {
            try channel.received(reply("2", ok: false, reason: "Unauthorized: no"), now: start + .seconds(1))
        }
    }

    @Test func aNewTokenGoesToTheLiveChannelOnce() throws {
        var channel = conversation()
        _ = channel.opened(now: start)
        _ = try channel.received(reply("1"), now: start)
        #expect(try channel.tick(now: start + .seconds(1), token: "t2") == [.send(.accessToken("t2", topic: "realtime:splashd", ref: "2", joinRef: "1"))])
        #expect(try channel.tick(now: start + .seconds(2), token: "t2").isEmpty)
    }
}
