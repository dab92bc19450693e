import Control
import Daemon
import Foundation
import NIOCore
import Shared
import SplashClient
import Testing
import TestSupport

/// Every kind of bad input on the control socket gets the JSON-RPC error it deserves (or a close),
/// and the daemon keeps serving.
@Suite(.serialized) struct BadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let line: [UInt8]
        let code: Int
        let kind: String
        let nullID: Bool
        var testDescription: String { name }

        init(_ name: String, _ line: String, _ code: Int, _ kind: String, nullID: Bool = false) {
            self.init(name, Array(line.utf8), code, kind, nullID: nullID)
        }

        init(_ name: String, _ bytes: [UInt8], _ code: Int, _ kind: String, nullID: Bool = false) {
            self.name = name
            self.line = bytes
            self.code = code
            self.kind = kind
            self.nullID = nullID
        }
    }

    static let cases: [Case] = [
        Case("malformed JSON", #"{"jsonrpc":"2.0","id":1,"method":"daemon.ping""#, -32700, "parse_error", nullID: true),
        Case("not JSON at all", "hello", -32700, "parse_error", nullID: true),
        Case("empty line", "", -32700, "parse_error", nullID: true),
        Case("an array (batch)", #"[{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}]"#, -32600, "invalid_request", nullID: true),
        Case("a scalar", "42", -32600, "invalid_request", nullID: true),
        Case("a string", #""daemon.ping""#, -32600, "invalid_request", nullID: true),
        Case("wrong jsonrpc version", #"{"jsonrpc":"1.0","id":1,"method":"daemon.ping"}"#, -32600, "invalid_request"),
        Case("jsonrpc missing", #"{"id":1,"method":"daemon.ping"}"#, -32600, "invalid_request"),
        Case("method missing", #"{"jsonrpc":"2.0","id":1}"#, -32600, "invalid_request"),
        Case("method not a string", #"{"jsonrpc":"2.0","id":1,"method":5}"#, -32600, "invalid_request"),
        Case("unknown method", #"{"jsonrpc":"2.0","id":1,"method":"photos.explode"}"#, -32601, "method_not_found"),
        Case("id of a wrong type", #"{"jsonrpc":"2.0","id":{"a":1},"method":"daemon.ping"}"#, -32600, "invalid_request", nullID: true),
        Case("an id the decoder would round", #"{"jsonrpc":"2.0","id":1.0000000000000000001,"method":"daemon.ping"}"#, -32600, "invalid_request", nullID: true),
        Case("an id that underflows to 0", #"{"jsonrpc":"2.0","id":1e-400,"method":"daemon.ping"}"#, -32600, "invalid_request", nullID: true),
        Case("params of the wrong type", #"{"jsonrpc":"2.0","id":1,"method":"photos.list","params":{"limit":"ten"}}"#, -32602, "invalid_input"),
        Case("params an array", #"{"jsonrpc":"2.0","id":1,"method":"photos.list","params":[1,2]}"#, -32602, "invalid_input"),
        Case("params out of range", #"{"jsonrpc":"2.0","id":1,"method":"photos.list","params":{"limit":0}}"#, -32602, "invalid_input"),
        Case("unknown enum value", #"{"jsonrpc":"2.0","id":1,"method":"photos.list","params":{"source":"flickr"}}"#, -32602, "invalid_input"),
        Case("huge number", #"{"jsonrpc":"2.0","id":1,"method":"photos.list","params":{"limit":1e999}}"#, -32602, "invalid_input"),
        Case("required param missing", #"{"jsonrpc":"2.0","id":1,"method":"events.unsubscribe","params":{}}"#, -32602, "invalid_input"),
        // Without a `params` member a method's params are those of `{}` (decoded once, Router.AbsentParams).
        Case("params absent, one required", #"{"jsonrpc":"2.0","id":1,"method":"events.unsubscribe"}"#, -32602, "invalid_input"),
        Case("params null, one required", #"{"jsonrpc":"2.0","id":1,"method":"events.unsubscribe","params":null}"#, -32602, "invalid_input"),
        Case("unknown subscription", #"{"jsonrpc":"2.0","id":1,"method":"events.unsubscribe","params":{"subscription":99}}"#, -32003, "not_found"),
        Case("invalid UTF-8", [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D], -32700, "parse_error", nullID: true),
        Case("a NUL byte", Array(#"{"jsonrpc":"2.0","id":1,"#.utf8) + [0] + Array(#""method":"daemon.ping"}"#.utf8), -32700, "parse_error", nullID: true),
        Case("deep nesting", String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000), -32700, "parse_error", nullID: true),
    ]

    @Test(arguments: cases)
    func answersWithTheRightErrorAndKeepsServing(_ badCase: Case) async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer()
            let connection = try harness.raw()
            let answer = try #require(try await connection.exchange(bytes: badCase.line))
            #expect(answer.errorCode == badCase.code, "\(answer)")
            #expect(answer.errorKind == badCase.kind, "\(answer)")
            #expect(answer["jsonrpc"] as? String == "2.0")
            #expect(answer.errorMessage?.isEmpty == false)
            if badCase.nullID {
                #expect(answer.hasNullID)
            } else {
                #expect(answer["id"] as? Int == 1)
            }
            // The same connection still works, and so does a new one.
            let pong = try #require(try await connection.exchange(#"{"jsonrpc":"2.0","id":2,"method":"daemon.ping"}"#))
            #expect((pong["result"] as? [String: Any])?["pong"] as? Bool == true)
            #expect(try await harness.client().send(PingRequest()).pong)
            await connection.close()
        }
    }

    /// The daemon's answer names its sentence (`data.text`), which a client in another language
    /// renders; its English is the message.
    @Test(arguments: [
        (#"{"jsonrpc":"2.0","id":1,"method":"events.unsubscribe","params":{}}"#,
         DaemonText.paramRequired(method: "events.unsubscribe", path: "params.subscription")),
        (#"{"jsonrpc":"2.0","id":1,"method":"photos.list","params":{"limit":"ten"}}"#,
         .paramWrongType(method: "photos.list", path: "params.limit", expected: "integer")),
        (#"{"jsonrpc":"2.0","id":1,"method":"photos.list","params":{"limit":0}}"#,
         .mustBeBetweenNot(name: "limit", minimum: 1, maximum: PhotosListRequest.maxLimit, given: 0)),
        (#"{"jsonrpc":"2.0","id":1,"method":"photos.explode"}"#, .unknownMethod(method: "photos.explode")),
        (#"{"jsonrpc":"2.0","id":1,"method":"events.unsubscribe","params":{"subscription":99}}"#, .unknownSubscription(subscription: 99)),
    ])
    func theAnswerCarriesItsSentence(line: String, text: DaemonText) async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer()
            let connection = try harness.raw()
            let answer = try #require(try await connection.exchange(line))
            let errorObject = try #require(answer["error"])
            let error = try JSONCoding.decoder().decode(RPCError.self, from: JSONSerialization.data(withJSONObject: errorObject))
            #expect(error.data?.text == text)
            #expect(error.message == text.english)
            await connection.close()
        }
    }

    @Test func notificationsGetNoAnswerEvenWhenWrong() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer()
            let connection = try harness.raw()
            for line in [#"{"jsonrpc":"2.0","method":"daemon.ping"}"#, #"{"jsonrpc":"2.0","method":"no.such"}"#,
                         #"{"jsonrpc":"2.0","method":"photos.list","params":{"limit":"x"}}"#] {
                try await connection.write(Data(line.utf8))
            }
            let answer = try #require(try await connection.exchange(#"{"jsonrpc":"2.0","id":"last","method":"daemon.ping"}"#))
            #expect(answer["id"] as? String == "last")
            await connection.close()
        }
    }

    @Test func nullIDIsAnsweredWithNullID() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer()
            let connection = try harness.raw()
            let answer = try #require(try await connection.exchange(#"{"jsonrpc":"2.0","id":null,"method":"daemon.ping"}"#))
            #expect(answer.hasNullID)
            #expect(answer["result"] != nil)
            await connection.close()
        }
    }

    @Test func aLineOverTheLimitIsRefusedAndTheConnectionClosed() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer { $0.maximumLineBytes = 64 * 1024 }
            let connection = try harness.raw()
            let huge = #"{"jsonrpc":"2.0","id":1,"method":"daemon.ping","params":{"pad":""# + String(repeating: "x", count: 2 << 20) + #""}}"#
            try? await connection.write(Data(huge.utf8))
            let answer = try #require(try await connection.read())
            let object = try #require(try JSONSerialization.jsonObject(with: answer) as? [String: Any])
            #expect(object.errorKind == "too_large")
            #expect(object.hasNullID)
            #expect(try await connection.read() == nil, "the connection should be closed")
            #expect(try await harness.client().send(PingRequest()).pong)
            await connection.close()
        }
    }

    /// The single-client test above catches a lost close only now and then (about one connection in
    /// twenty on a 2-core machine): whether the client sees it depends on where its own blocked write
    /// is when the daemon closes. A hundred oversize lines in a row, each on a new connection, make a
    /// regression show up in every run: each client must read its `too_large` answer and then an
    /// orderly end of stream, never a reset (Linux resets a Unix socket closed with unread data).
    /// One after another rather than at once: clients at once were measured to hit the race less often.
    @Test func aHundredOversizeLinesInARowAllGetTheAnswerAndAnOrderlyClose() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer { $0.maximumLineBytes = 64 * 1024 }
            let huge = Data((#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping","params":{"pad":""# + String(repeating: "x", count: 2 << 20) + #""}}"#).utf8)
            var outcomes: [String: Int] = [:]
            for _ in 0..<100 {
                let connection = try harness.raw()
                // The daemon may stop reading before the whole line is written; that is allowed.
                try? await connection.write(huge)
                let outcome: String
                do {
                    if let line = try await connection.read(),
                       let answer = try JSONSerialization.jsonObject(with: line) as? [String: Any] {
                        if answer.errorKind != "too_large" || !answer.hasNullID {
                            outcome = "wrong answer \(answer)"
                        } else {
                            outcome = try await connection.read() == nil ? "refused and closed" : "more after the answer"
                        }
                    } else {
                        outcome = "no answer"
                    }
                } catch {
                    outcome = "\(error)"
                }
                outcomes[outcome, default: 0] += 1
                await connection.close()
            }
            #expect(outcomes == ["refused and closed": 100])
            #expect(await eventually { harness.server.openConnections } until: { $0 == 0 } == 0)
            #expect(try await harness.client().send(PingRequest()).pong)
        }
    }

    /// The drain after a refusal is bounded in bytes: a client that keeps sending after its oversize
    /// line is closed once it has sent that much more (the time bound is set out of reach here), so a
    /// refusal cannot be turned into an endless sink.
    @Test func aClientThatKeepsSendingAfterTheRefusalIsClosedPastTheDrainBytes() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer {
                $0.maximumLineBytes = 64 * 1024
                $0.refusalDrainBytes = 256 * 1024
                $0.refusalDrainTime = .seconds(3600)
            }
            let connection = try harness.raw()
            let start = ContinuousClock.now
            var sent = 0
            do {
                try await connection.write(Data(String(repeating: "x", count: 128 * 1024).utf8))
                sent += 128 * 1024
                let chunk = Data(String(repeating: "y", count: 64 * 1024).utf8)
                while sent < 64 << 20 {
                    try await connection.write(chunk)
                    sent += chunk.count
                }
            } catch {}
            // What the daemon dropped plus what the kernel buffers: far below the 64 MiB the client offered.
            #expect(sent < 4 << 20, "sent \(sent) bytes before the daemon closed")
            #expect(ContinuousClock.now - start < .seconds(10))
            #expect(await eventually { harness.server.openConnections } until: { $0 == 0 } == 0)
            #expect(try await harness.client().send(PingRequest()).pong)
            await connection.close()
        }
    }

    /// The drain after a refusal is bounded in time: a client that reads its refusal and the end of the
    /// stream but never closes its side is closed by the daemon anyway.
    @Test func aRefusedClientThatNeverClosesIsClosedAfterTheDrainTime() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer {
                $0.maximumLineBytes = 64 * 1024
                $0.refusalDrainTime = .milliseconds(300)
            }
            let connection = try harness.raw()
            try await connection.write(Data(String(repeating: "x", count: 128 * 1024).utf8))
            let answer = try #require(try await connection.read())
            let object = try #require(try JSONSerialization.jsonObject(with: answer) as? [String: Any])
            #expect(object.errorKind == "too_large")
            #expect(try await connection.read() == nil, "the daemon shuts its side after the refusal")
            let start = ContinuousClock.now
            #expect(await eventually(tries: 200) { harness.server.openConnections } until: { $0 == 0 } == 0)
            #expect(ContinuousClock.now - start < .seconds(10))
            await connection.close()
        }
    }

    @Test func aLineJustUnderTheLimitIsAccepted() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer { $0.maximumLineBytes = 4096 }
            let connection = try harness.raw()
            var line = #"{"jsonrpc":"2.0","id":1,"method":"daemon.ping","params":{"pad":""#
            line += String(repeating: "y", count: 4096 - line.utf8.count - 3) + #""}}"#
            #expect(line.utf8.count == 4096)
            let answer = try #require(try await connection.exchange(line))
            #expect(answer["result"] != nil, "\(answer)")
            await connection.close()
        }
    }

    @Test func aClientThatConnectsAndNeverSendsIsClosedAfterTheIdleTimeout() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer { $0.idleTimeout = .milliseconds(500) }
            let connection = try harness.raw()
            let start = ContinuousClock.now
            #expect(try await connection.read() == nil)
            #expect(ContinuousClock.now - start < .seconds(10))
            await connection.close()
        }
    }

    @Test func aSubscriberIsNotClosedForBeingQuiet() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer { $0.idleTimeout = .milliseconds(300) }
            let client = try harness.client()
            _ = try await client.send(SubscribeRequest())
            try await Task.sleep(for: .seconds(1))
            harness.state.bus.publish(.daemonReloaded)
            let event = try await client.nextEvent()
            #expect(event?.event == .daemonReloaded)
            await client.close()
        }
    }
}
