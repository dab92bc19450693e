import Control
import Daemon
import DaemonTestSupport
import Foundation
import Shared
import SplashClient
import Testing
import TestSupport

@Suite struct InProcessConnectionTests {
    @Test func theTypedClientWorksWithoutASocket() async throws {
        let daemon = try await InProcessDaemon(photos: [])
        let state = daemon.state, router = daemon.router
        let described = try await InProcessConnection.with(router: router) { connection in
            let client = SplashClient(connection: connection)
            #expect(try await client.send(PingRequest()).version == SplashVersion.current)
            _ = try await client.send(SubscribeRequest())
            state.bus.publish(.daemonReloaded)
            #expect(try await client.nextEvent()?.event == .daemonReloaded)
            return try await client.send(DescribeRequest())
        }
        #expect(described.methods.map(\.name).sorted() == MethodRegistry.names.sorted())
        #expect(router.methods == MethodRegistry.names.sorted(), "every registered method has a route and vice versa")
    }
}
