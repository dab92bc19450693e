#if canImport(Glibc)
import Glibc
#endif
import Control
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import NIOWebSocket
import Shared
import Support
import Synchronization

/// The web gallery: HTTP and a WebSocket on loopback (127.0.0.1, and ::1 on the same port), behind
/// `GalleryGuard`. The page's files come from `root`; `/rpc` is the control protocol itself, each
/// WebSocket message one JSON-RPC message through the daemon's own router (`MessageSession`), with
/// the control socket's limits; `/images/<photo id>/<size>` answers pictures the daemon looks up by
/// id (`GalleryImages`).
///
/// A port that cannot be had is logged and said by `address` (and so by `web.open`); the daemon
/// goes on without its gallery.
public final class GalleryServer: Service, Sendable {
    public struct Configuration: Sendable {
        /// 0: whatever port the kernel gives (tests).
        public var port: Int
        /// The page's files (index.html, its scripts and styles); nil: not installed.
        public var root: String?
        /// The largest message either way, as the control socket's longest line.
        public var maximumMessageBytes: Int
        /// Events queued for a tab that does not read, before they are counted as missed.
        public var eventQueueCapacity: Int
        /// How long a connection may be quiet between requests, or before its first one's head has come.
        public var idleSeconds: Int64 = 60

        public init(port: Int, root: String?, maximumMessageBytes: Int, eventQueueCapacity: Int) {
            self.port = port
            self.root = root
            self.maximumMessageBytes = maximumMessageBytes
            self.eventQueueCapacity = eventQueueCapacity
        }
    }

    public let address: GalleryAddress
    private let configuration: Configuration
    private let sessions: GallerySessions
    private let rpc: Control.Router
    private let images: any GalleryImages
    private let group: any EventLoopGroup
    private let logger: Logger
    private let connections = Atomic<UInt64>(0)

    public init(
        configuration: Configuration, sessions: GallerySessions, address: GalleryAddress, router: Control.Router,
        images: any GalleryImages, group: any EventLoopGroup, logger: Logger
    ) {
        self.configuration = configuration
        self.sessions = sessions
        self.address = address
        self.rpc = router
        self.images = images
        self.group = group
        self.logger = logger
    }

    public func run() async throws {
        let routes = makeRoutes()
        let port = configuration.port
        let ipv4: any Service
        do {
            ipv4 = try server(routes, host: "127.0.0.1", port: port) { [address] in address.listening(port: $0) }
        } catch {
            return refused(port: port, error)
        }
        await withTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                do { try await ipv4.run() } catch { self.refused(port: port, error) }
            }
            // ::1 on the port 127.0.0.1 got, so that both are one origin's; a machine without IPv6
            // has the gallery on 127.0.0.1 alone.
            guard case .listening(let port) = await address.settled(within: .seconds(30)) else { return }
            logger.notice("web gallery on http://127.0.0.1:\(port)/", metadata: ["splashd_op": "web"])
            do {
                try await server(routes, host: "::1", port: port) { _ in }.run()
            } catch {
                logger.info("web gallery: not on [::1]:\(port) (\(error)); on 127.0.0.1 only", metadata: ["splashd_op": "web"])
            }
        }
    }

    private func refused(port: Int, _ error: any Error) {
        address.failed("127.0.0.1:\(port): \(error)")
        logger.warning("web gallery: cannot listen on 127.0.0.1:\(port): \(error)", metadata: ["splashd_op": "web"])
    }

    /// One address's server, as Hummingbird's `Application.run` builds it but without the service that
    /// formats the `Date` header once a second: idle, splashd wakes for nothing (the header is made
    /// per answer instead, a few microseconds).
    private func server(
        _ routes: Hummingbird.Router<BasicWebSocketRequestContext>, host: String, port: Int, running: @escaping @Sendable (Int) -> Void
    ) throws -> any Service {
        let responder = routes.buildResponder()
        let channel = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: .seconds(configuration.idleSeconds)),
            ws: .init(maxFrameSize: configuration.maximumMessageBytes))
        let builder = HTTPServerBuilder { [webSocketResponder = routes.buildResponder(), patience = configuration.idleSeconds] responder in
            GalleryChildChannel(upgrading: HTTP1WebSocketUpgradeChannel(
                responder: responder, webSocketResponder: webSocketResponder, configuration: channel),
                patience: .seconds(patience))
        }
        return try builder.buildServer(
            configuration: ServerConfiguration(address: .hostname(host, port: port)), eventLoopGroup: group, logger: Self.silent,
            responder: { request, writer, channel in
                let context = BasicWebSocketRequestContext(source: .init(channel: channel, logger: Self.silent))
                var response: Response
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch {
                    response = GalleryGuard.refusal(.internalServerError, "The gallery failed to answer.")
                    GalleryGuard.secure(&response.headers)
                }
                response.headers[.date] = HTTPDate.now()
                try await writer.write(response: response.head, body: response.body)
            },
            onServerRunning: { channel in running(channel.localAddress?.port ?? port) })
    }

    private func makeRoutes() -> Hummingbird.Router<BasicWebSocketRequestContext> {
        let routes = Hummingbird.Router(context: BasicWebSocketRequestContext.self)
        routes.add(middleware: GalleryGuard(sessions: sessions, port: { [address] in
            if case .listening(let port) = address.current { port } else { nil }
        }))
        if let root = configuration.root {
            // Asked again each time (a changed page after an upgrade shows at once); ETags keep that cheap.
            let everyFile = MediaType(type: .any)
            routes.add(middleware: FileMiddleware(root, cacheControl: .init([(everyFile, [.noCache])]), searchForIndexHtml: true, logger: Self.silent))
        } else {
            routes.get("/") { _, _ in
                GalleryGuard.refusal(.serviceUnavailable, "The gallery's page is not installed with this splashd.")
            }
        }
        let responder = ImageResponder()
        routes.get("/images/:id/:size") { [images] request, context in
            // A page escapes the id as a path segment (`unsplash%3Aabc`): read it back, then judge it.
            guard let id = context.parameters.get("id")?.removingPercentEncoding, Self.plausible(id: id),
                  let size = context.parameters.get("size").flatMap(GalleryImageSize.init(rawValue:)) else {
                throw HTTPError(.badRequest)
            }
            return try await responder.respond(try await Self.picture { try await images.file(photoId: id, size: size) }, to: request, context: context)
        }
        routes.get("/images/:id/edit/:edit") { [images] request, context in
            guard let id = context.parameters.get("id")?.removingPercentEncoding, Self.plausible(id: id),
                  let edit = context.parameters.get("edit"), Self.plausible(editId: edit) else {
                throw HTTPError(.badRequest)
            }
            return try await responder.respond(
                try await Self.picture { try await images.rendering(photoId: id, editId: edit) }, to: request, context: context)
        }
        routes.ws("/rpc") { [self] inbound, outbound, _ in
            await serve(inbound: inbound, outbound: outbound)
        }
        return routes
    }

    /// One tab's connection: the control protocol until the tab goes, or its session is revoked
    /// (closed with 4001, which the page takes for "open the gallery again").
    private func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let context = ConnectionContext(
            id: connections.add(1, ordering: .relaxed).newValue, peer: PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid()),
            transport: .gallery, eventQueueCapacity: configuration.eventQueueCapacity)
        let writer = MessageWriter(outbound: outbound)
        let seen = sessions.revoked.generation
        let revoked = await withTaskGroup(of: Bool.self) { tasks in
            tasks.addTask { [rpc, configuration] in
                let messages = inbound.messages(maxSize: configuration.maximumMessageBytes).map { message -> Data in
                    switch message {
                    case .text(let text): Data(text.utf8)
                    case .binary(let bytes): Data(bytes.readableBytesView)
                    }
                }
                try? await MessageSession.serve(router: rpc, context: context, incoming: messages) { try await writer.write($0) }
                return false
            }
            tasks.addTask { [sessions] in
                await sessions.revoked.wait(beyond: seen)
                return !Task.isCancelled
            }
            let first = await tasks.next() ?? false
            tasks.cancelAll()
            return first
        }
        if revoked { try? await outbound.close(.unknown(4001), reason: "session revoked") }
    }

    /// Hummingbird's own logger: what matters of the gallery this server logs itself, and a request's
    /// address (a token in it) must never reach the journal, whatever the daemon's log level.
    static let silent = Logger(label: "splashd.web.hummingbird", factory: { _ in SwiftLogNoOpLogHandler() })

    /// An edit id as the daemon makes them (a UUID): letters, digits and dashes.
    static func plausible(editId: String) -> Bool {
        (1...64).contains(editId.count) && editId.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }

    /// A photo id as the store writes them (`source:remote id`): anything with a path's marks in it
    /// is refused before the store is asked.
    static func plausible(id: String) -> Bool {
        guard id.count <= 300, let colon = id.firstIndex(of: ":"), colon != id.startIndex else { return false }
        return !id.contains("/") && !id.contains("\\") && !id.contains("\0") && !id.contains("..")
    }

    /// A picture from the daemon, or the answer that says why not: 404 for no such photo, 503 (try
    /// again soon) for one that is not here and cannot be fetched now.
    static func picture(_ find: () async throws -> GalleryImageFile?) async throws -> GalleryImageFile {
        let found: GalleryImageFile?
        do {
            found = try await find()
        } catch {
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "30"], message: "not on this machine, and cannot be fetched now: \(error)")
        }
        guard let found else { throw HTTPError(.notFound) }
        return found
    }
}

/// One writer at a time on a tab's WebSocket: answers and events go out whole, never interleaved.
private actor MessageWriter {
    let outbound: WebSocketOutboundWriter

    init(outbound: WebSocketOutboundWriter) { self.outbound = outbound }

    func write(_ message: Data) async throws {
        try await outbound.write(.text(String(decoding: message, as: UTF8.self)))
    }
}
