import Logging
@testable import Realtime
import Testing

/// Where the live channel connects, and where it refuses to go without TLS.
@Suite struct RealtimeURLTests {
    func url(_ backend: String, plain: Set<String> = []) throws(RealtimeSetupError) -> String {
        try RealtimeService(
            configuration: .init(backendURL: backend, anonKey: "anon", device: "d1", plainHosts: plain), logger: Logger(label: "test"),
            account: { nil }, changed: { _ in }, joined: {}
        ).websocketURL()
    }

    @Test func httpsBecomesWssWithTheKeyAndTheProtocolVersion() throws {
        #expect(try url("https://abcd.supabase.co") == "wss://abcd.supabase.co/realtime/v1/websocket?apikey=anon&vsn=1.0.0")
        #expect(try url("https://abcd.supabase.co/") == "wss://abcd.supabase.co/realtime/v1/websocket?apikey=anon&vsn=1.0.0")
    }

    @Test func plainOnlyToLoopbackAndTheHostsAllowedPlainHTTP() throws {
        #expect(try url("http://127.0.0.1:54321") == "ws://127.0.0.1:54321/realtime/v1/websocket?apikey=anon&vsn=1.0.0")
        #expect(try url("http://localhost:8000").hasPrefix("ws://localhost:8000/"))
        #expect(try url("http://10.0.0.2:8000", plain: ["10.0.0.2"]).hasPrefix("ws://10.0.0.2:8000/"))
        #expect(throws: RealtimeSetupError.plainToRemote("example.com")) { try url("http://example.com") }
        #expect(throws: RealtimeSetupError.badURL("ftp://x")) { try url("ftp://x") }
    }
}
