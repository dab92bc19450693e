@testable import Daemon
import Control
import Foundation
import Library
import Logging
import Shared
import SplashClient
import Store
import Testing
import TestSupport

@Suite struct InProcessConnectionTests {
    @Test func theTypedClientWorksWithoutASocket() async throws {
        let directory = TemporaryDirectory()
        let state = DaemonState(bus: EventBus(), directories: DaemonStatus.example.directories)
        let router = Routes.make(state: state, library: PhotoLibrary(store: try Store(path: directory.file("s.sqlite"))), logger: Logger(label: "t"))
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
