import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A WebSocket to the gallery opened with exactly the headers a browser would send (or a hostile
/// page, or another user): NIO's client upgrader, with no header added of its own.
enum BrowserSocket {
    struct Refused: Error {}

    enum Upgrade {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case refused
    }

    /// One open socket: text messages out and in.
    struct Session {
        let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
        var inbound: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator
        /// The code of the server's close frame, once it came.
        var closeCode: UInt16?

        func send(_ text: String) async throws {
            try await outbound.write(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)))
        }

        /// The next text message; nil once the server closed (with `closeCode`).
        mutating func next() async throws -> String? {
            while let frame = try await inbound.next() {
                switch frame.opcode {
                case .text: return String(buffer: frame.data)
                case .connectionClose:
                    var data = frame.unmaskedData
                    closeCode = data.readInteger(as: UInt16.self)
                    return nil
                default: continue
                }
            }
            return nil
        }
    }

    /// Opens `/rpc` on 127.0.0.1:`port` with `headers` (and nothing else but the upgrade's own),
    /// runs `body`, and returns the server's close code if it sent one; throws `Refused` when the
    /// server answers the upgrade with anything but 101.
    @discardableResult
    static func open(port: Int, headers: [(String, String)], _ body: (inout Session) async throws -> Void) async throws -> UInt16? {
        let upgrade: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(upgradePipelineHandler: { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            Upgrade.websocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                        }
                    })
                    var fields = HTTPHeaders()
                    for (name, value) in headers { fields.add(name: name, value: value) }
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/rpc", headers: fields)
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeCompletedFuture { Upgrade.refused } })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                }
            }
        guard case .websocket(let channel) = try await upgrade.get() else { throw Refused() }
        return try await channel.executeThenClose { inbound, outbound in
            var session = Session(outbound: outbound, inbound: inbound.makeAsyncIterator())
            try await body(&session)
            return session.closeCode
        }
    }
}
