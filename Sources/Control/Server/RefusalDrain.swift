import NIOCore

/// Reads and drops whatever a refused client still sends, so that its connection is not closed with
/// unread data: Linux marks the peer of a Unix stream socket closed with a non-empty receive queue
/// with ECONNRESET, and the client then reads a reset instead of the end of the stream (or, if it has
/// not read it yet, instead of the refusal). A refused client may well be mid-write — an oversize line
/// can be megabytes — so the daemon half-closes after the refusal and lets this handler swallow the
/// rest until the client closes its side; only then is the connection closed, with nothing unread.
///
/// It sits in front of the line decoder. Once draining, bytes reach neither the decoder (after a line
/// over the limit it is in its error state) nor the async channel (whose inbound stream has ended; its
/// handler then stops asking for reads for good, so without this handler nobody would read the socket
/// and the client's bytes would sit in the kernel until the close resets the connection).
///
/// Bounded, so a client cannot use a refusal to hold a connection or make the daemon do work without
/// end: past `maximumBytes` dropped or `maximumTime` the handler closes the connection itself (that
/// client may see a reset; it ignored the refusal). Nothing is buffered: dropped bytes are only counted.
final class RefusalDrain: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum State {
        case passing
        case draining(remainingBytes: Int, done: EventLoopPromise<Void>, deadline: Scheduled<Void>)
        case drained
    }

    private let eventLoop: any EventLoop
    private var state = State.passing
    private var context: ChannelHandlerContext?

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(closing: false)
        self.context = nil
    }

    /// From now on drops everything the client sends. The future succeeds once the client has closed
    /// its side or the connection is gone; past either bound the connection is closed and the future
    /// succeeds too. Call on the channel's event loop.
    func drain(maximumBytes: Int, maximumTime: TimeAmount) -> EventLoopFuture<Void> {
        eventLoop.preconditionInEventLoop()
        switch state {
        case .draining(_, let done, _):
            return done.futureResult
        case .drained:
            return eventLoop.makeSucceededVoidFuture()
        case .passing:
            guard let context, context.channel.isActive else {
                state = .drained
                return eventLoop.makeSucceededVoidFuture()
            }
            let done = eventLoop.makePromise(of: Void.self)
            let deadline = eventLoop.assumeIsolated().scheduleTask(in: maximumTime) { self.finish(closing: true) }
            state = .draining(remainingBytes: maximumBytes, done: done, deadline: deadline)
            // The async channel's handler may have stopped reading (its stream ended); ask ourselves.
            context.read()
            return done.futureResult
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .passing:
            context.fireChannelRead(data)
        case .draining(let remainingBytes, let done, let deadline):
            let left = remainingBytes - unwrapInboundIn(data).readableBytes
            if left < 0 {
                finish(closing: true)
            } else {
                state = .draining(remainingBytes: left, done: done, deadline: deadline)
            }
        case .drained:
            // The connection is closing; nobody wants these bytes.
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Keep reading while draining: the handlers behind us no longer ask for reads.
        if case .draining = state { context.read() }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client closed its side (remote half-closure is allowed): everything it sent is read.
        if let event = event as? ChannelEvent, event == .inputClosed { finish(closing: false) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(closing: false)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A read error while draining (the client reset it) ends the drain; nothing is left to read.
        if case .draining = state { finish(closing: false) }
        context.fireErrorCaught(error)
    }

    private func finish(closing: Bool) {
        guard case .draining(_, let done, let deadline) = state else { return }
        state = .drained
        deadline.cancel()
        if closing { context?.close(promise: nil) }
        done.succeed()
    }
}
