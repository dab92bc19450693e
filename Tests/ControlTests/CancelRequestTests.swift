import Control
import Foundation
import Logging
import Shared
import Synchronization
import SplashClient
import Testing
import TestSupport

/// `$/cancelRequest`: a cancellable request being worked on ends at once with `cancelled`; any other
/// answers as it would have; answers keep their order; the cancel itself is never answered.
@Suite struct CancelRequestTests {
    /// `edits.preview` (cancellable) works until it is cancelled (or a minute passes, and the test
    /// fails on its answer rather than hanging); `daemon.describe` (not cancellable) waits for `gate`.
    static func router(gate: Gate) -> Router {
        var router = Router(logger: Logger(label: "test"))
        router.register(EditsPreviewRequest.self) { _, _ in
            try await Task.sleep(for: .seconds(60))
            return EditsPreviewRequest.resultExample
        }
        router.register(DescribeRequest.self) { _, _ in
            await gate.wait()
            // Not cancellable: even a cancelled task answers with its result.
            return DescribeResult(version: Task.isCancelled ? "cancelled anyway" : "answered", methods: [], events: [])
        }
        router.register(PingRequest.self) { _, _ in PingResult(pong: true, version: "test") }
        return router
    }

    /// `edits.preview` opens `started` and works for a minute, opening `stopped` if it is cancelled
    /// first; `daemon.ping` answers at once.
    static func previewRouter(started: Gate, stopped: Gate) -> Router {
        var router = Router(logger: Logger(label: "test"))
        router.register(EditsPreviewRequest.self) { _, _ in
            started.open()
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                stopped.open()
                throw error
            }
            return EditsPreviewRequest.resultExample
        }
        router.register(PingRequest.self) { _, _ in PingResult(pong: true, version: "test") }
        return router
    }

    static func request(_ id: Int, _ method: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(method == "edits.preview" ? #"{"id":"unsplash:p1","filters":[{"filter":"sepia"}]}"# : "{}")}"#
    }

    static func cancel(_ id: Int) -> String {
        #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":\#(id)}}"#
    }

    /// Serves `lines` through `Router.serve` and returns the replies as they came (nil: a notification's).
    static func serve(_ lines: ScriptedLines, router: Router) async throws -> [[String: Any]?] {
        let replies = Mutex<[Data?]>([])
        let context = ConnectionContext(id: 1, peer: PeerCredentials(pid: 1, uid: 0, gid: 0), transport: .gallery, eventQueueCapacity: 8)
        try await router.serve(lines, context: context) { reply in replies.withLock { $0.append(reply) } }
        return try replies.withLock { $0 }.map { data in try data.map { try #require(try JSONSerialization.jsonObject(with: $0) as? [String: Any]) } }
    }

    @Test func aCancelStopsTheCancellableRequestInWork() async throws {
        let router = Self.router(gate: Gate())
        let lines = ScriptedLines(router: router, [Self.request(1, "edits.preview"), Self.cancel(1), Self.request(2, "daemon.ping")])
        let replies = try await Self.serve(lines, router: router)
        #expect(replies.count == 3)
        #expect(replies.first! == nil, "the cancel is not answered; its turn is at once")
        let cancelled = try #require(replies[1])
        #expect(cancelled["id"] as? Int == 1)
        #expect(cancelled.errorCode == -32012, "\(cancelled)")
        #expect((cancelled["error"] as? [String: Any])?["message"] as? String == "edits.preview was cancelled at the client's request")
        #expect(replies[2]?["id"] as? Int == 2)
        #expect(replies[2]?["result"] != nil)
    }

    /// The cancel is read (the script is asked for the line after it) before the gate opens: the
    /// request it names was in work, and answers all the same.
    @Test func aRequestThatCannotBeCancelledAnswersAsItWould() async throws {
        let gate = Gate()
        let router = Self.router(gate: gate)
        let lines = ScriptedLines(router: router, [Self.request(1, "daemon.describe"), Self.cancel(1), Self.request(2, "daemon.ping")]) { asked in
            if asked == 2 { gate.open() }
        }
        let replies = try await Self.serve(lines, router: router)
        #expect(replies.count == 3)
        #expect(replies[0] == nil)
        #expect((replies[1]?["result"] as? [String: Any])?["version"] as? String == "answered", "\(String(describing: replies[1]))")
        #expect(replies[2]?["id"] as? Int == 2)
    }

    /// A cancel for a request already answered, for an id never sent, or without params changes
    /// nothing and is not answered; a cancel sent with an id is a request, and is refused.
    @Test func strayCancelsAreIgnoredAndACancelWithAnIdIsRefused() async throws {
        let router = Self.router(gate: Gate())
        let lines = ScriptedLines(router: router, [
            Self.request(1, "daemon.ping"), Self.cancel(1), Self.cancel(99),
            #"{"jsonrpc":"2.0","method":"$/cancelRequest"}"#, #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":[]}}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"$/cancelRequest","params":{"id":1}}"#,
        ])
        let replies = try await Self.serve(lines, router: router)
        // The cancels' nils come as they are read, the ping's answer when it is ready.
        #expect(replies.count == 6)
        #expect(replies.filter { $0 == nil }.count == 4)
        let answers = replies.compactMap { $0 }
        try #require(answers.count == 2)
        #expect(answers[0]["id"] as? Int == 1 && answers[0]["result"] != nil, "\(answers[0])")
        let refused = answers[1]
        #expect(refused["id"] as? Int == 7)
        #expect(refused.errorCode == -32600, "\(refused)")
    }

    /// The lines fail while a request is in work (a line too long comes behind it): the request is
    /// still answered, before `serve` throws (so before the caller's refusal).
    @Test func aRequestInWorkWhenTheLinesFailIsAnsweredFirst() async throws {
        let gate = Gate()
        let router = Self.router(gate: gate)
        let lines = ScriptedLines(router: router, [Self.request(1, "daemon.describe")], failsAtEnd: true) { asked in
            if asked == 1 { gate.open() }
        }
        let replies = Mutex<[Data?]>([])
        let context = ConnectionContext(id: 1, peer: PeerCredentials(pid: 1, uid: 0, gid: 0), eventQueueCapacity: 8)
        await #expect(throws: ScriptedLines.Broken.self) {
            try await router.serve(lines, context: context) { reply in replies.withLock { $0.append(reply) } }
        }
        #expect(replies.withLock { $0.count } == 1, "answered before serve threw")
    }

    /// Over the real control socket, pipelined in one write: the preview's answer is `cancelled`, in
    /// its place before the ping's.
    @Test func overTheControlSocket() async throws {
        try await SplashdFixture.run { fixture in
            let harness = try await fixture.controlServer(router: Self.router(gate: Gate()))
            let connection = try harness.raw()
            defer { Task { await connection.close() } }
            let lines = [Self.request(1, "edits.preview"), Self.cancel(1), Self.request(2, "daemon.ping")]
            try await connection.write(Data(lines.joined(separator: "\n").utf8))
            let first = try await ImmediateAnswerTests.answer(connection)
            let second = try await ImmediateAnswerTests.answer(connection)
            #expect(first["id"] as? Int == 1)
            #expect(first.errorCode == -32012, "\(first)")
            #expect(((first["error"] as? [String: Any])?["data"] as? [String: Any])?["kind"] as? String == "cancelled")
            #expect(second["id"] as? Int == 2)
        }
    }

    /// splashctl's side: a request of a cancellable method whose task is cancelled while its answer is
    /// awaited (Ctrl-C) is cancelled at the daemon, whose work stops (the handler's sleep ends in
    /// cancellation), and the one answer, `cancelled`, is still read; the connection serves on.
    @Test func aClientWhoseTaskIsCancelledCancelsItsRequestAtTheDaemon() async throws {
        try await SplashdFixture.run { fixture in
            let (started, stopped) = (Gate(), Gate())
            let harness = try await fixture.controlServer(router: Self.previewRouter(started: started, stopped: stopped))
            let client = try harness.client()
            let preview = Task {
                try await client.send(EditsPreviewRequest(id: "unsplash:p1", filters: [FilterStep(filter: "sepia")]))
            }
            await started.wait()
            preview.cancel()
            // Not cancelled at the daemon, the preview would answer with its result after a minute.
            let refused = await #expect(throws: RPCError.self) { try await preview.value }
            #expect(refused?.kind == .cancelled, "\(String(describing: refused))")
            if refused?.kind == .cancelled { await stopped.wait() }
            #expect(try await client.send(PingRequest()).pong)
            await client.close()
        }
    }

    /// Ctrl-C on `splashctl edit --preview` while the daemon renders: splashctl cancels the request
    /// instead of dying, the daemon's work stops, and splashctl says so and exits 130. (Dying of the
    /// signal would also give 130, but would leave the daemon working and print nothing.)
    @Test func ctrlCOnSplashctlsPreviewStopsTheDaemonsRender() async throws {
        try await SplashdFixture.run { fixture in
            let (started, stopped) = (Gate(), Gate())
            let harness = try await fixture.controlServer(router: Self.previewRouter(started: started, stopped: stopped))
            let directory = TemporaryDirectory()
            let stderr = directory.path + "/stderr"
            let splashctl = try ChildProcess(
                executable: DaemonProcess.splashctlPath,
                arguments: ["--socket", harness.socketPath, "edit", "unsplash:p1", "--filter", "sepia", "--preview", directory.path + "/p.jpg"],
                environment: ["PATH": "/usr/bin:/bin", "LANG": "C"], stderrPath: stderr)
            defer { splashctl.signal(SIGKILL) }
            await started.wait()
            splashctl.signal(SIGINT)
            #expect(await splashctl.wait() == 130)
            let said = try String(contentsOfFile: stderr, encoding: .utf8)
            #expect(said.contains("edits.preview was cancelled at the client's request"), "\(said)")
            await stopped.wait()
            #expect(!FileManager.default.fileExists(atPath: directory.path + "/p.jpg"))
        }
    }

    @Test func describeSaysWhichMethodsCanBeCancelled() throws {
        let described = MethodRegistry.all.map(MethodRegistry.description(of:))
        #expect(described.filter { $0.cancellable == true }.map(\.name) == ["edits.preview"])
        #expect(described.allSatisfy { $0.cancellable != false }, "absent rather than false")
    }
}

/// Lines served one by one, telling `onAsked` the index of each line asked for (so a test knows what
/// the server has read by then).
struct ScriptedLines: AsyncSequence, Sendable {
    typealias Element = Router.Line
    struct Broken: Error {}

    let lines: [Router.Line]
    let onAsked: @Sendable (Int) -> Void
    /// After the lines, the sequence fails (as a line too long does) instead of ending.
    let failsAtEnd: Bool

    init(router: Router, _ texts: [String], failsAtEnd: Bool = false, onAsked: @escaping @Sendable (Int) -> Void = { _ in }) {
        lines = texts.map { Router.Line(data: Data($0.utf8), parsed: router.parse(line: Data($0.utf8))) }
        self.onAsked = onAsked
        self.failsAtEnd = failsAtEnd
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let lines: [Router.Line]
        let onAsked: @Sendable (Int) -> Void
        let failsAtEnd: Bool
        var index = 0

        mutating func next() async throws -> Router.Line? {
            onAsked(index)
            guard index < lines.count else {
                if failsAtEnd { throw Broken() }
                return nil
            }
            defer { index += 1 }
            return lines[index]
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(lines: lines, onAsked: onAsked, failsAtEnd: failsAtEnd) }
}

/// Opens once; waiters before and after go on.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}
