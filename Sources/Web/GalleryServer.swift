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
import NIOPosix
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
        /// Listening sockets systemd passed (`splashd-web.socket`): served instead of binding `port`.
        public var inherited: [Int32] = []

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
        let child = childChannel(makeRoutes())
        if !configuration.inherited.isEmpty {
            // Hummingbird's own servers stop on the service group's graceful shutdown; these are ours.
            try? await cancelWhenGracefulShutdown { await self.serveInherited(child) }
            return
        }
        let port = configuration.port
        let ipv4: any Service
        do {
            ipv4 = try server(child, host: "127.0.0.1", port: port) { [address] in address.listening(port: $0) }
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
                try await server(child, host: "::1", port: port) { _ in }.run()
            } catch {
                logger.info("web gallery: not on [::1]:\(port) (\(error)); on 127.0.0.1 only", metadata: ["splashd_op": "web"])
            }
        }
    }

    /// The sockets `splashd-web.socket` passed (socket activation): listening already, on the port of
    /// its ListenStream= lines. They are one origin only if they share a port; the first one's is the
    /// gallery's.
    private func serveInherited(_ child: GalleryChildChannel) async {
        let ports = configuration.inherited.map(Self.localPort)
        guard let port = ports.first ?? nil else {
            address.failed("the socket systemd passed is not a TCP socket")
            return
        }
        if Set(ports).count > 1 {
            logger.warning(
                "web gallery: the sockets systemd passed listen on different ports (\(ports.compactMap { $0 })); the gallery's is \(port)",
                metadata: ["splashd_op": "web"])
        }
        if configuration.port != 0 && configuration.port != port {
            logger.notice(
                "web.port \(configuration.port) is not used: the gallery's port is the one splashd-web.socket passed, \(port)",
                metadata: ["splashd_op": "web"])
        }
        address.listening(port: port)
        logger.notice("web gallery on http://127.0.0.1:\(port)/ (socket activation)", metadata: ["splashd_op": "web"])
        await withTaskGroup(of: Void.self) { tasks in
            for fd in configuration.inherited {
                tasks.addTask {
                    do {
                        try await self.serve(fd: fd, child)
                    } catch {
                        self.logger.warning("web gallery: cannot serve the socket systemd passed (fd \(fd)): \(error)", metadata: ["splashd_op": "web"])
                    }
                }
            }
        }
    }

    /// One inherited socket, served as Hummingbird's `Server` serves the one it binds.
    private func serve(fd: Int32, _ child: GalleryChildChannel) async throws {
        let listening = try await ServerBootstrap(group: group)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .bind(NIOBSDSocket.Handle(fd)) { channel in child.setup(channel: channel, logger: Self.silent) }
        await withDiscardingTaskGroup { connections in
            try? await listening.executeThenClose { inbound in
                for try await connection in inbound {
                    connections.addTask { await child.handle(value: connection, logger: Self.silent) }
                }
            }
        }
    }

    static func localPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        return withUnsafePointer(to: &storage) { pointer -> Int? in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET: pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            case AF_INET6: pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            default: nil
            }
        }
    }

    private func refused(port: Int, _ error: any Error) {
        address.failed("127.0.0.1:\(port): \(error)")
        logger.warning("web gallery: cannot listen on 127.0.0.1:\(port): \(error)", metadata: ["splashd_op": "web"])
    }

    /// Hummingbird's HTTP/1 and WebSocket channel with the gallery's guard of the request head, answering
    /// from `routes`; the same for a socket the server binds and for one systemd passed.
    private func childChannel(_ routes: Hummingbird.Router<BasicWebSocketRequestContext>) -> GalleryChildChannel {
        let responder = routes.buildResponder()
        let channel = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: .seconds(configuration.idleSeconds)),
            ws: .init(maxFrameSize: configuration.maximumMessageBytes))
        let respond: HTTPChannelHandler.Responder = { request, writer, channel in
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
        }
        return GalleryChildChannel(
            upgrading: HTTP1WebSocketUpgradeChannel(responder: respond, webSocketResponder: responder, configuration: channel),
            patience: .seconds(configuration.idleSeconds))
    }

    /// One address's server, as Hummingbird's `Application.run` builds it but without the service that
    /// formats the `Date` header once a second: idle, splashd wakes for nothing (the header is made
    /// per answer instead, a few microseconds).
    private func server(
        _ child: GalleryChildChannel, host: String, port: Int, running: @escaping @Sendable (Int) -> Void
    ) throws -> any Service {
        try HTTPServerBuilder { _ in child }.buildServer(
            configuration: ServerConfiguration(address: .hostname(host, port: port)), eventLoopGroup: group, logger: Self.silent,
            responder: child.upgrading.responder,
            onServerRunning: { channel in running(channel.localAddress?.port ?? port) })
    }

    private func makeRoutes() -> Hummingbird.Router<BasicWebSocketRequestContext> {
        let routes = Hummingbird.Router(context: BasicWebSocketRequestContext.self)
        routes.add(middleware: GalleryGuard(sessions: sessions, port: { [address] in
            if case .listening(let port) = address.current { port } else { nil }
        }))
        if let root = configuration.root {
            routes.add(middleware: PageFiles(root: root, logger: Self.silent))
        } else {
            routes.get("/") { _, _ in
                GalleryGuard.refusal(.serviceUnavailable, "The gallery's page is not installed with this splashd.")
            }
        }
        let responder = ImageResponder()
        let picture: @Sendable (Request, BasicWebSocketRequestContext) async throws -> Response = { [images] request, context in
            // A page escapes the id as a path segment (`unsplash%3Aabc`): read it back, then judge it.
            guard let id = context.parameters.get("id").flatMap(PathSegment.decoded), Self.plausible(id: id),
                  let size = context.parameters.get("size").flatMap(GalleryImageSize.init(rawValue:)) else {
                throw HTTPError(.badRequest)
            }
            return try await responder.respond(try await Self.picture { try await images.file(photoId: id, size: size) }, to: request, context: context)
        }
        let rendering: @Sendable (Request, BasicWebSocketRequestContext) async throws -> Response = { [images] request, context in
            guard let id = context.parameters.get("id").flatMap(PathSegment.decoded), Self.plausible(id: id),
                  let edit = context.parameters.get("edit"), Self.plausible(editId: edit) else {
                throw HTTPError(.badRequest)
            }
            return try await responder.respond(
                try await Self.picture { try await images.rendering(photoId: id, editId: edit) }, to: request, context: context)
        }
        routes.get("/images/:id/:size", use: picture)
        routes.head("/images/:id/:size", use: picture)
        routes.get("/images/:id/edit/:edit", use: rendering)
        routes.head("/images/:id/edit/:edit", use: rendering)
        routes.ws("/rpc") { [self] inbound, outbound, _ in
            // The connection's task prefers its event loop (`GalleryChildChannel`); a tab's requests
            // go to the daemon's services (a preview render, a page of 100,000 photos) and belong on
            // the cooperative pool, not on a loop other connections' bytes wait for.
            await withTaskExecutorPreference(globalConcurrentExecutor) {
                await serve(inbound: inbound, outbound: outbound)
            }
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
    /// Read as bytes: Foundation's `contains` of a string goes through NSString, for every thumbnail.
    static func plausible(id: String) -> Bool {
        let bytes = id.utf8
        guard bytes.count <= 300, let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon != bytes.startIndex else { return false }
        var previous: UInt8 = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "/"), UInt8(ascii: "\\"), 0: return false
            case UInt8(ascii: ".") where previous == UInt8(ascii: "."): return false
            default: previous = byte
            }
        }
        return true
    }

    /// A picture from the daemon, or the answer that says why not: 404 for no such photo or none
    /// to be had, 503 (try again soon) for one that is not here and cannot be fetched now.
    static func picture(_ find: () async throws -> GalleryImageFile?) async throws -> GalleryImageFile {
        let found: GalleryImageFile?
        do {
            found = try await find()
        } catch let unavailable as GalleryPictureUnavailable {
            throw unavailable
        } catch {
            throw GalleryPictureUnavailable(words: "not on this machine, and cannot be fetched now: \(error)", lasting: false)
        }
        guard let found else { throw HTTPError(.notFound) }
        return found
    }
}

extension GalleryPictureUnavailable: HTTPResponseError {
    public var status: HTTPResponse.Status { lasting ? .notFound : .serviceUnavailable }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = GalleryGuard.refusal(status, words)
        if !lasting { response.headers[.retryAfter] = "30" }
        return response
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
