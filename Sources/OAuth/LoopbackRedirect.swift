import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The one-shot listener an OAuth flow's browser comes back to (RFC 8252 §7.3): bound to 127.0.0.1 on a
/// port the system picks, it waits for one request to `/callback`, hands over its query, answers the
/// browser with a short page, and closes. Anything else it is asked (a favicon) gets 404 and changes
/// nothing. It closes by itself after `timeout`; then, or once closed, nothing listens on the port.
///
/// HTTP is NIO's (NIOHTTP1, llhttp), not parsed here.
public final class LoopbackRedirect: Sendable {
    /// How a flow ended, as the listener saw it.
    public enum Outcome: Sendable, Equatable {
        /// The browser came back: the callback's query parameters.
        case callback([String: String])
        /// Nobody came back within the timeout.
        case timedOut
        /// Closed before anybody came back (the flow was given up).
        case closed
    }

    /// What the browser is shown, chosen from the callback's query by the flow that owns the listener.
    public struct Page: Sendable, Equatable {
        public var status: Int
        public var title: String
        public var message: String
        /// Where to go from here (the gallery that began the sign-in), with the link's words.
        public var link: Link?

        public struct Link: Sendable, Equatable {
            public var words: String
            public var url: String

            public init(words: String, url: String) {
                self.words = words
                self.url = url
            }
        }

        public init(status: Int, title: String, message: String, link: Link? = nil) {
            self.status = status
            self.title = title
            self.message = message
            self.link = link
        }
    }

    public let port: Int
    /// `http://127.0.0.1:<port>/callback`.
    public var redirectURI: String { "http://127.0.0.1:\(port)/callback" }

    private let channel: any Channel
    private let state: Mutex<State>

    private struct State {
        var outcome: Outcome?
        /// The one wait under way, and its number (a timer ends only the wait it was set for).
        var waiter: (number: Int, continuation: CheckedContinuation<Outcome?, Never>)?
        var waits = 0
    }

    /// Binds the listener. `page` chooses what the browser sees for a callback's query.
    public static func open(
        timeout: Duration, page: @escaping @Sendable ([String: String]) -> Page,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> LoopbackRedirect {
        let delivery = DeliveryBox()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 8)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try child.pipeline.syncOperations.addHandler(CallbackHandler(delivery: delivery, page: page))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let listener = LoopbackRedirect(channel: channel, port: channel.localAddress?.port ?? 0)
        delivery.listener.withLock { $0 = listener }
        channel.eventLoop.scheduleTask(in: timeAmount(timeout)) { listener.finish(.timedOut) }
        return listener
    }

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
        state = Mutex(State())
    }

    /// Waits at most `wait` for the outcome (at once if it is already known); nil when it is not known
    /// by then, or the wait is cancelled: the listener stays open. One wait at a time (a new one ends
    /// the one before it with nil).
    public func outcome(within wait: Duration) async -> Outcome? {
        let number = state.withLock { state -> Int in
            state.waits += 1
            return state.waits
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome?, Never>) in
                let (known, replaced) = state.withLock { state -> (Outcome?, CheckedContinuation<Outcome?, Never>?) in
                    if let outcome = state.outcome { return (outcome, nil) }
                    let replaced = state.waiter?.continuation
                    state.waiter = (number, continuation)
                    return (nil, replaced)
                }
                replaced?.resume(returning: nil)
                if let known {
                    continuation.resume(returning: known)
                    return
                }
                channel.eventLoop.scheduleTask(in: Self.timeAmount(wait)) { self.endWait(number) }
            }
        } onCancel: {
            endWait(number)
        }
    }

    /// Ends wait `number` with nil, if it is still the one under way.
    private func endWait(_ number: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome?, Never>? in
            guard let waiter = state.waiter, waiter.number == number else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: nil)
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// A callback's query parameters, the first of each name, decoded as a form is (`+` is a space:
    /// Auth, like Go's url.Values, writes `error_description=The+person+refused`).
    public static func query(of components: URLComponents) -> [String: String] {
        var query: [String: String] = [:]
        for item in components.percentEncodedQueryItems ?? [] where query[item.name.removingPercentEncoding ?? item.name] == nil {
            let value = (item.value ?? "").replacingOccurrences(of: "+", with: "%20")
            query[item.name.removingPercentEncoding ?? item.name] = value.removingPercentEncoding ?? value
        }
        return query
    }

    /// Gives the flow up: the port closes and a waiter hears `.closed`.
    public func close() {
        finish(.closed)
    }

    /// Whether the listener still accepts connections.
    public var isOpen: Bool { state.withLock { $0.outcome == nil } }

    /// The first outcome wins; the listening socket closes with it.
    func finish(_ outcome: Outcome) {
        let first = state.withLock { state -> (CheckedContinuation<Outcome?, Never>?, Bool) in
            guard state.outcome == nil else { return (nil, false) }
            state.outcome = outcome
            defer { state.waiter = nil }
            return (state.waiter?.continuation, true)
        }
        guard first.1 else { return }
        channel.close(promise: nil)
        first.0?.resume(returning: outcome)
    }
}

/// The listener, for the connections' handlers (made before it).
private final class DeliveryBox: Sendable {
    let listener = Mutex<LoopbackRedirect?>(nil)
}

/// One connection: `GET /callback?…` delivers its query (the first to arrive wins) and gets the page;
/// any other request gets 404. Every answer closes the connection.
private final class CallbackHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let delivery: DeliveryBox
    let page: @Sendable ([String: String]) -> LoopbackRedirect.Page

    init(delivery: DeliveryBox, page: @escaping @Sendable ([String: String]) -> LoopbackRedirect.Page) {
        self.delivery = delivery
        self.page = page
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let components = URLComponents(string: head.uri)
        guard head.method == .GET, components?.path == "/callback", let listener = delivery.listener.withLock({ $0 }) else {
            respond(context, LoopbackRedirect.Page(status: 404, title: "Not found", message: "Nothing here."))
            return
        }
        guard listener.isOpen else {
            respond(context, LoopbackRedirect.Page(status: 410, title: "Sign-in over", message: "This sign-in has already ended."))
            return
        }
        let query = components.map(LoopbackRedirect.query(of:)) ?? [:]
        respond(context, page(query))
        listener.finish(.callback(query))
    }

    private func respond(_ context: ChannelHandlerContext, _ page: LoopbackRedirect.Page) {
        let html = """
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>\(Self.escaped(page.title))</title></head>\
            <body style="font-family: sans-serif; margin: 3em"><h1>\(Self.escaped(page.title))</h1><p>\(Self.escaped(page.message))</p>\
            \(page.link.map { "<p><a href=\"\(Self.escaped($0.url))\">\(Self.escaped($0.words))</a></p>" } ?? "")</body></html>

            """
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(html.utf8.count))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Cache-Control", value: "no-store")
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: page.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: html)))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
