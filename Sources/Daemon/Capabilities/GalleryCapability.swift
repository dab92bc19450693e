import Clocks
import Control
import Foundation
import Library
import Logging
import NIOCore
import Shared
import Synchronization
import Web

/// The web gallery (`web.*`, `splashctl open`): who may open it (`GallerySessions`, its secret in the
/// state directory), where it listens once it does, and the server, made once the router is. Nil in
/// the graph when `web.enabled` is off.
struct GalleryCapability: Sendable {
    let sessions: GallerySessions
    let address: GalleryAddress
    let configuration: GalleryServer.Configuration
    let logger: Logger

    static func make(
        config: DaemonConfig, directories: DaemonDirectories, inherited: [Int32], state: DaemonState, clock: AnyClock<Duration>,
        logger: Logger
    ) -> GalleryCapability? {
        guard config.webEnabled else {
            if !inherited.isEmpty {
                logger.warning("web.enabled is off, yet splashd-web.socket passed the gallery's sockets: disable the socket unit", metadata: ["splashd_op": "web"])
            }
            return nil
        }
        let sessions: GallerySessions
        do {
            sessions = try GallerySessions(secretPath: directories.state + "/web-secret", clock: clock)
        } catch {
            logger.error("no web gallery: \(error)", metadata: ["splashd_op": "web"])
            return nil
        }
        Self.endSessionsAtSignOut(state: state, sessions: sessions, logger: logger)
        var configuration = GalleryServer.Configuration(
            port: config.webPort, root: config.webRoot ?? Self.installedRoot(), maximumMessageBytes: config.maximumLineBytes,
            eventQueueCapacity: config.eventQueueCapacity)
        configuration.idleSeconds = config.webIdleSeconds
        configuration.inherited = inherited
        return GalleryCapability(sessions: sessions, address: GalleryAddress(), configuration: configuration, logger: logger)
    }

    func server(router: Control.Router, images: any GalleryImages, group: any EventLoopGroup) -> GalleryServer {
        GalleryServer(
            configuration: configuration, sessions: sessions, address: address, router: router, images: images, group: group,
            logger: logger)
    }

    /// `web.open`: a one-time address, once the server listens.
    func open() async throws -> WebOpenResult {
        switch await address.settled(within: .seconds(10)) {
        case .listening(let port):
            let token = sessions.issueToken()
            return WebOpenResult(
                url: "http://127.0.0.1:\(port)/?token=\(token)",
                expiresAt: Date().addingTimeInterval(TimeInterval(GallerySessions.tokenLife.components.seconds)))
        case .failed(let reason):
            throw DaemonFailure.galleryNotListening(reason: reason)
        case .starting:
            throw DaemonFailure.galleryNotListening(reason: "it has not started")
        }
    }

    /// A screen of the gallery's page at its address (the one `web.open` gives, without a token: a
    /// browser let in already opens it), nil while the gallery does not listen.
    func pageAddress(screen: String) -> String? {
        guard case .listening(let port) = address.current else { return nil }
        return "http://127.0.0.1:\(port)/#/\(screen)"
    }

    /// `web.revoke`.
    func revoke() throws {
        try sessions.revokeAll()
        logger.notice("web gallery: every session ended", metadata: ["splashd_op": "web"])
    }

    /// Signing out of the account ends the gallery's sessions too: the browser was let in as the
    /// person who was signed in.
    private static func endSessionsAtSignOut(state: DaemonState, sessions: GallerySessions, logger: Logger) {
        let signedIn = Mutex(state.current.account.userId != nil)
        _ = state.bus.subscribe(types: [.accountChanged], snapshot: {}) { notification in
            guard case .accountChanged(let account) = notification.event else { return }
            let was = signedIn.withLock { was in defer { was = account.userId != nil }; return was }
            guard was, account.userId == nil else { return }
            do {
                try sessions.revokeAll()
                logger.notice("web gallery: signed out, so every session ended", metadata: ["splashd_op": "web"])
            } catch {
                logger.error("web gallery: sessions not ended at sign-out: \(error)", metadata: ["splashd_op": "web"])
            }
        }
    }

    /// The page's files where `make install` (and the .deb) put them beside the binary, or in the
    /// source tree a built binary sits in; nil when neither holds them.
    static func installedRoot() -> String? {
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return nil }
        let directory = executable.deletingLastPathComponent()
        let candidates = [
            directory.appendingPathComponent("../share/splashd/web"),
            directory.appendingPathComponent("../../../web"),
        ].map { $0.standardizedFileURL.path }
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/index.html") }
    }
}
