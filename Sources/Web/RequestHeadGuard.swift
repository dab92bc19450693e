import NIOCore
import NIOHTTP1

/// What Hummingbird's WebSocket-upgrading channel does not do for a connection's first request, just
/// after the HTTP decoder:
/// - a head the decoder cannot read (over its limit, or not HTTP) is answered and the connection ended
///   (the decoder's error went to a future nobody answered, and the connection stayed open and silent);
/// - a head that has not arrived within `patience` ends the connection (Hummingbird's idle timeout
///   starts only once a request is under way);
/// - an HTTP/1.0 request is answered with the connection closed after it (`Connection: close` added
///   to its head): Hummingbird answers 1.0 as 1.1 and keeps the connection, so a 1.0 client, which
///   reads until the close, waited for good.
/// Once the first head has passed it leaves the pipeline: Hummingbird's own HTTP/1 handling answers
/// a later request's parse error, and an upgraded connection's frames never meet it.
///
/// It ends a connection as a careful server does: the answer, then its own half of the connection,
/// dropping what the client still sends until it closes or `linger` passes. Closing with the
/// client's bytes unread resets the connection, and a reset can overtake the answer.
final class RequestHeadGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let patience: TimeAmount
    private let linger: TimeAmount
    private var answered = false
    private var waitingForHead: Scheduled<Void>?

    init(patience: TimeAmount, linger: TimeAmount = .seconds(5)) {
        self.patience = patience
        self.linger = linger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        waitingForHead = context.eventLoop.scheduleTask(in: patience) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        waitingForHead?.cancel()
    }

    /// The decoder's first part is the first request's head; the guard leaves the pipeline with it.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        waitingForHead?.cancel()
        guard case .head(var head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        if head.version.major == 1 && head.version.minor == 0 { head.headers.replaceOrAdd(name: "Connection", value: "close") }
        context.fireChannelRead(wrapInboundOut(.head(head)))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // After the answer the decoder only repeats that it is in its error state.
        guard !answered else { return }
        guard let parserError = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        answered = true
        waitingForHead?.cancel()
        let overflow = parserError == .headerOverflow
        let reason = overflow ? "The request's head is longer than the gallery reads.\n" : "The gallery cannot read this request.\n"
        var body = context.channel.allocator.buffer(capacity: reason.utf8.count)
        body.writeString(reason)
        let head = HTTPResponseHead(version: .http1_1, status: overflow ? .requestHeaderFieldsTooLarge : .badRequest, headers: [
            "Content-Type": "text/plain; charset=utf-8", "Content-Length": "\(body.readableBytes)", "Connection": "close",
            "X-Content-Type-Options": "nosniff",
        ])
        let channel = context.channel
        context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
        }
        context.eventLoop.scheduleTask(in: linger) { channel.close(promise: nil) }
    }
}
