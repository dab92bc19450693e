import Foundation
import NIOCore

/// What the connection's task writes: the end of one line's handling (its answer, or none for a
/// notification), or bytes that answer no line (an event, a refusal).
enum ControlOutput: Sendable {
    case reply(ByteBuffer?)
    case unprompted(ByteBuffer)
}

/// Answers the router's immediate methods (`daemon.status`, `daemon.ping`) on the connection's event
/// loop, where the request was read: a request answered by the connection's task crosses to a thread
/// of the concurrency pool and back, and those two switches were half the time of a `daemon.status`
/// round trip (perf, on the release daemon).
///
/// Answers stay in request order: a line is answered here only when every line before it has been
/// answered, which this handler knows because the task reports each line's end (`.reply`) through the
/// pipeline, on this loop, behind that line's answer. Until the connection has passed its checks (peer
/// credentials, the connection limit) the handler is disarmed and answers nothing: every line goes to
/// the task, which refuses the connection. A client that does not read its answers makes the channel
/// unwritable; then lines go to the task too, whose writes wait, and reading stops (no answer is
/// buffered without bound).
final class ImmediateAnswers: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = Router.Line
    typealias OutboundIn = ControlOutput
    typealias OutboundOut = ByteBuffer

    private let router: Router
    private var armed = false
    /// Lines passed to the task whose end it has not reported yet.
    private var unanswered = 0

    init(router: Router) {
        self.router = router
    }

    /// Lets the handler answer from now on; the connection's checks have passed.
    func arm() {
        armed = true
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = Data(unwrapInboundIn(data).readableBytesView)
        let parsed = router.parse(line: line)
        if armed, unanswered == 0, context.channel.isWritable, let answer = router.answerImmediately(line: line, parsed: parsed) {
            if let answer { context.writeAndFlush(wrapOutboundOut(ControlServer.line(answer)), promise: nil) }
            return
        }
        unanswered += 1
        context.fireChannelRead(wrapInboundOut(Router.Line(data: line, parsed: parsed)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .unprompted(let bytes):
            context.write(wrapOutboundOut(bytes), promise: promise)
        case .reply(let bytes?):
            unanswered -= 1
            context.write(wrapOutboundOut(bytes), promise: promise)
        case .reply(nil):
            unanswered -= 1
            promise?.succeed(())
        }
    }
}
