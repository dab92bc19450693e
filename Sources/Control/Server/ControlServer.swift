#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Shared
import Synchronization

/// The control socket: a Unix stream socket speaking line-delimited JSON-RPC. This is the transport
/// adapter only; what each method does is the router's business.
///
/// Requests on one connection are answered in order, one at a time: the next line is not read until
/// the previous answer is written, which bounds a connection's memory and gives natural backpressure.
/// Methods that answer from memory are answered on the event loop that read them (`ImmediateAnswers`).
/// Clients that want concurrency open more connections (bounded by `maximumConnections`).
public final class ControlServer: Service, Sendable {
    public struct Configuration: Sendable {
        public var socket: ListeningSocket
        public var maximumLineBytes = 1 << 20
        public var maximumConnections = 256
        public var eventQueueCapacity = 1024
        /// A connection with no subscription that sends nothing for this long is closed.
        public var idleTimeout: TimeAmount = .seconds(300)
        /// After a refusal the daemon reads and drops what the client still sends until it closes its
        /// side (see `RefusalDrain`), but at most this many bytes and for at most this long; then it
        /// closes anyway. A few MiB covers an oversize line a confused client is still writing.
        public var refusalDrainBytes = 4 << 20
        public var refusalDrainTime: TimeAmount = .seconds(2)
        public var daemonUID: UInt32 = getuid()

        public init(socket: ListeningSocket) {
            self.socket = socket
        }
    }

    public let configuration: Configuration
    private let router: Router
    private let logger: Logger
    private let group: MultiThreadedEventLoopGroup
    private let connections = Atomic<Int>(0)
    private let nextConnectionID = Atomic<UInt64>(1)
    private let listening: Mutex<CheckedContinuation<Void, any Error>?> = Mutex(nil)
    private let readyState = Mutex<ReadyState>(.waiting)

    private enum ReadyState { case waiting, ready, failed(any Error) }

    public init(configuration: Configuration, router: Router, logger: Logger, group: MultiThreadedEventLoopGroup) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.group = group
    }

    /// Returns once the socket listens (or throws why it cannot). `run()` must be running.
    public func waitUntilListening() async throws {
        try await withCheckedThrowingContinuation { continuation in
            let resumeNow: Result<Void, any Error>? = readyState.withLock { state in
                switch state {
                case .ready: return .success(())
                case .failed(let error): return .failure(error)
                case .waiting:
                    listening.withLock { $0 = continuation }
                    return nil
                }
            }
            if let resumeNow { continuation.resume(with: resumeNow) }
        }
    }

    private func markListening(_ result: Result<Void, any Error>) {
        let continuation = readyState.withLock { state -> CheckedContinuation<Void, any Error>? in
            switch result {
            case .success: state = .ready
            case .failure(let error): state = .failed(error)
            }
            return listening.withLock { value in defer { value = nil }; return value }
        }
        continuation?.resume(with: result)
    }

    public func run() async throws {
        let server: NIOAsyncChannel<Accepted, Never>
        do {
            server = try await bind()
            markListening(.success(()))
        } catch {
            markListening(.failure(error))
            throw error
        }
        logger.info("control socket listening", metadata: ["splashd_socket": "\(describeSocket())"])
        // Graceful shutdown closes the listening socket, which ends `inbound`; then the open connections
        // are cancelled. A graceful shutdown cancels no task by itself, and a client that stays
        // connected (a watcher, an applet) kept the daemon up until systemd's SIGKILL.
        try await withGracefulShutdownHandler {
            try await server.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await accepted in inbound {
                        group.addTask { await self.serve(accepted) }
                    }
                    group.cancelAll()
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
        if case .path(let path) = configuration.socket { unlink(path) }
    }

    private func describeSocket() -> String {
        switch configuration.socket {
        case .path(let path): path
        case .inherited(let fd): "fd \(fd) from systemd"
        }
    }

    struct Accepted: Sendable {
        let channel: NIOAsyncChannel<Router.Line, ControlOutput>
        let peer: PeerCredentials
        let idle: IdleWatch
        let drain: NIOLoopBound<RefusalDrain>
        let immediate: NIOLoopBound<ImmediateAnswers>
    }

    private func bind() async throws -> NIOAsyncChannel<Accepted, Never> {
        let maximumLineBytes = configuration.maximumLineBytes
        let idleTimeout = configuration.idleTimeout
        let router = self.router
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Accepted> = { channel in
            PeerCredentials.of(channel).flatMapThrowing { peer in
                let idle = IdleWatch()
                try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: idleTimeout))
                try channel.pipeline.syncOperations.addHandler(IdleCloseHandler(watch: idle))
                // In front of the decoder, so that after a refusal it sees raw bytes, whatever state
                // the decoder is in.
                let drain = RefusalDrain(eventLoop: channel.eventLoop)
                try channel.pipeline.syncOperations.addHandler(drain)
                try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maximumLength: maximumLineBytes)))
                let immediate = ImmediateAnswers(router: router)
                try channel.pipeline.syncOperations.addHandler(immediate)
                // Deinit-based teardown on purpose: a connection accepted in the instant the listener
                // closes is dropped by NIO before anyone serves it, and must then just be closed (the
                // non-deprecated initializer traps instead: "Deinited NIOAsyncWriter without calling
                // finish()", seen in tests). Every connection that is served is closed explicitly.
                let async = try Self.wrapClosingOnDeinit(channel)
                return Accepted(
                    channel: async, peer: peer, idle: idle, drain: NIOLoopBound(drain, eventLoop: channel.eventLoop),
                    immediate: NIOLoopBound(immediate, eventLoop: channel.eventLoop))
            }
        }
        switch configuration.socket {
        case .inherited(let fd):
            return try await bootstrap.bind(fd, childChannelInitializer: initializer)
        case .path(let path):
            try SocketPathPreparation.prepare(path)
            let server = try await bootstrap.bind(
                unixDomainSocketPath: path, cleanupExistingSocketFile: false, childChannelInitializer: initializer)
            // bind(2) honours the umask; make the mode explicit whatever the umask was.
            chmod(path, 0o600)
            return server
        }
    }

    private func serve(_ accepted: Accepted) async {
        let id = nextConnectionID.add(1, ordering: .relaxed).oldValue
        let open = connections.add(1, ordering: .relaxed).newValue
        defer { connections.subtract(1, ordering: .relaxed) }
        let context = ConnectionContext(id: id, peer: accepted.peer, eventQueueCapacity: configuration.eventQueueCapacity)
        accepted.idle.context = context
        defer { context.close() }
        var logger = self.logger
        logger[metadataKey: "splashd_conn"] = "\(id)"
        do {
            try await accepted.channel.executeThenClose { inbound, outbound in
                if !accepted.peer.isAllowed(daemonUID: configuration.daemonUID) {
                    logger.warning("refused a control connection from another user", metadata: [
                        "splashd_peer_uid": "\(accepted.peer.uid)", "splashd_peer_pid": "\(accepted.peer.pid)",
                    ])
                    let error = RPCError(.permissionDenied, .peerNotAllowed(uid: Int(configuration.daemonUID)))
                    try await refuse(accepted, with: error)
                    return
                }
                if open > configuration.maximumConnections {
                    let error = RPCError(.busy, .tooManyConnections(limit: configuration.maximumConnections), retryAfter: 1)
                    try await refuse(accepted, with: error)
                    return
                }
                let immediate = accepted.immediate
                immediate.eventLoop.execute { immediate.value.arm() }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        try await context.sink.drainMessages { try await outbound.write(.unprompted(Self.line($0))) }
                    }
                    do {
                        try await router.serve(inbound, context: context) { try await outbound.write(.reply($0.map(Self.line))) }
                    } catch let error as LineTooLong {
                        // No event may follow the refusal.
                        group.cancelAll()
                        let rpcError = RPCError(.tooLarge, .lineTooLong(limit: error.limit))
                        try await refuse(accepted, with: rpcError)
                    }
                    group.cancelAll()
                }
            }
        } catch {
            logger.debug("control connection ended", metadata: ["splashd_error": "\(error)"])
        }
    }

    /// Refuses a connection: one error, then an orderly end. The client's bytes are drained from the
    /// start (see `RefusalDrain`), the error is written and waited for until the kernel has it (so the
    /// close cannot overtake it), the write side is shut (the client reads the error, then the end of
    /// the stream), and the close waits until the client has closed its side, within the drain bounds.
    /// A close with the client's bytes unread would reset the connection (Linux), and the client would
    /// see "connection reset" after the error, or instead of it.
    private func refuse(_ accepted: Accepted, with error: RPCError) async throws {
        let channel = accepted.channel.channel
        let drain = accepted.drain
        let bytes = configuration.refusalDrainBytes
        let time = configuration.refusalDrainTime
        let drained = drain.eventLoop.flatSubmit { drain.value.drain(maximumBytes: bytes, maximumTime: time) }
        try await channel.writeAndFlush(ControlOutput.unprompted(Self.line(Router.encode(error: error, id: nil)))).get()
        try? await channel.close(mode: .output).get()
        // Stopping the daemon cancels the connection's task: close now rather than wait out the drain.
        await withTaskCancellationHandler {
            try? await drained.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    @available(*, deprecated, message: "uses NIO's deinit-based teardown on purpose; see bind()")
    private static func wrapClosingOnDeinit(_ channel: any Channel) throws -> NIOAsyncChannel<Router.Line, ControlOutput> {
        try NIOAsyncChannel(synchronouslyWrapping: channel)
    }

    static func line(_ data: Data) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(data.count + 1)
        buffer.writeBytes(data)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return buffer
    }

    /// Open connections right now (for tests and status).
    public var openConnections: Int { connections.load(ordering: .relaxed) }
}

/// Lets the pipeline's idle handler see whether the connection has subscriptions (those may be quiet
/// for hours legitimately).
final class IdleWatch: Sendable {
    private let contextBox = Mutex<ConnectionContext?>(nil)
    var context: ConnectionContext? {
        get { contextBox.withLock { $0 } }
        set { contextBox.withLock { $0 = newValue } }
    }
}

/// Closes a connection that has been silent past the idle timeout, unless it is subscribed to events.
final class IdleCloseHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let watch: IdleWatch

    init(watch: IdleWatch) {
        self.watch = watch
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            if watch.context?.hasSubscriptions != true { context.close(promise: nil) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
