import Control
import Foundation
import Logging
import NIOPosix
import Shared
import Synchronization
import SplashClient
import Testing
import TestSupport

/// `daemon.status` and `daemon.ping` are answered on the event loop that read them (`ImmediateAnswers`),
/// never out of turn and never to a connection that has not passed its checks.
@Suite struct ImmediateAnswerTests {
    /// A router whose `daemon.ping` says whether it ran on an event loop, and whose `daemon.describe`
    /// takes 200 ms (the ordinary path, on the concurrency pool).
    static func router() -> Router {
        var router = Router(logger: Logger(label: "test"))
        router.registerImmediate(PingRequest.self) { _ in
            PingResult(pong: MultiThreadedEventLoopGroup.currentEventLoop != nil, version: "test")
        }
        router.register(DescribeRequest.self) { _, _ in
            try await Task.sleep(for: .milliseconds(200))
            return DescribeResult(version: "slow", methods: [], events: [])
        }
        return router
    }

    static func line(_ id: Int, _ method: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)"}"#
    }

    static func answer(_ connection: UnixSocketConnection) async throws -> [String: Any] {
        let line = try #require(try await connection.read())
        return try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
    }

    @Test func anImmediateMethodIsAnsweredOnTheEventLoop() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer(router: Self.router())
            let connection = try harness.raw()
            defer { Task { await connection.close() } }
            // The loop answers once the connection's task has checked it and armed the handler; a line
            // that arrives before goes to the task (seen under load: the first ping's pong was false).
            // The first answer comes after the arming, which the task queues on the loop before it reads.
            #expect(try await connection.exchange(Self.line(1, "daemon.ping"))?["result"] != nil)
            let answer = try await connection.exchange(Self.line(2, "daemon.ping"))
            #expect((answer?["result"] as? [String: Any])?["pong"] as? Bool == true)
        }
    }

    /// Pipelined behind a slow request, a ping waits its turn: it is answered after the slow one, by
    /// the connection's task. Once nothing is outstanding, pings are answered on the loop again.
    @Test func answersKeepTheirRequestsOrder() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer(router: Self.router())
            let connection = try harness.raw()
            defer { Task { await connection.close() } }
            #expect(try await connection.exchange(Self.line(0, "daemon.ping"))?["result"] != nil, "armed (see above)")
            // One write, four lines (the connection adds the last newline).
            let lines = [Self.line(1, "daemon.describe"), Self.line(2, "daemon.ping"), "[]", Self.line(4, "daemon.ping")]
            try await connection.write(Data(lines.joined(separator: "\n").utf8))
            var answers: [[String: Any]] = []
            for _ in 0..<4 { answers.append(try await Self.answer(connection)) }
            #expect(answers.map { $0["id"] as? Int } == [1, 2, nil, 4], "\(answers)")
            #expect(answers[2].errorCode == -32600, "the envelope's error keeps its place too")
            #expect(answers.compactMap { ($0["result"] as? [String: Any])?["pong"] as? Bool } == [false, false])
            let after = try await connection.exchange(Self.line(5, "daemon.ping"))
            #expect((after?["result"] as? [String: Any])?["pong"] as? Bool == true)
        }
    }

    /// A connection over the limit is refused `busy`, whatever it asks: no immediate answer reaches a
    /// connection before its checks have passed.
    @Test func aConnectionOverTheLimitGetsNoImmediateAnswer() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer(router: Self.router()) { $0.maximumConnections = 1 }
            let first = try harness.raw()
            defer { Task { await first.close() } }
            #expect(try await first.exchange(Self.line(1, "daemon.ping"))?["result"] != nil)
            let second = try harness.raw()
            defer { Task { await second.close() } }
            let refused = try await second.exchange(Self.line(1, "daemon.ping"))
            #expect(refused?.errorKind == "busy", "\(String(describing: refused))")
            #expect(try await second.read() == nil, "closed after the refusal")
        }
    }

    /// An immediate answer is put together from the result's kept JSON (`Router.registerImmediate`):
    /// byte for byte what the encoder makes of the whole response, for every kind of id, and never a
    /// stale result when the state it reads has changed.
    @Test func anImmediateAnswerIsTheEncodersBytesAndFollowsTheState() throws {
        let status = Mutex(DaemonStatus.example)
        var router = Router(logger: Logger(label: "test"))
        router.registerImmediate(StatusRequest.self) { _ in status.withLock { $0 } }
        let ids: [(json: String, id: RPCID?)] = [
            ("null", nil), ("0", .number(0)), ("-9223372036854775808", .number(.min)),
            (#""a\"b/\\c\u0001é😀""#, .string("a\"b/\\c\u{1}é😀")),
        ]
        let states: [(inout DaemonStatus) -> Void] = [
            { _ in }, { $0.library.photos += 1 }, { _ in }, { $0.library.photos -= 1 }, { $0.lastSyncAt = Date(timeIntervalSince1970: 1_800_000_000) },
        ]
        for change in states {
            let expected = status.withLock { change(&$0); return $0 }
            for (json, id) in ids {
                let line = Data(#"{"jsonrpc":"2.0","id":\#(json),"method":"daemon.status"}"#.utf8)
                let answer = try #require(router.answerImmediately(line: line, parsed: router.parse(line: line)) ?? nil)
                let encoded = try JSONCoding.encoder().encode(ResponseEnvelope(id: id, result: expected))
                #expect(String(decoding: answer, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
            }
        }
    }
}
