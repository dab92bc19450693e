import Control
import Shared

/// `web.*`: the gallery's sessions, opened and ended only from the control socket (a tab cannot
/// mint itself another session or end the person's).
enum WebRoutes {
    static func register(into router: inout Router, gallery: GalleryCapability?) {
        router.register(WebOpenRequest.self) { _, connection in
            try await checked(gallery, connection, WebOpenRequest.method).open()
        }
        router.register(WebRevokeRequest.self) { _, connection in
            try checked(gallery, connection, WebRevokeRequest.method).revoke()
            return WebRevokeResult(revoked: true)
        }
    }

    private static func checked(
        _ gallery: GalleryCapability?, _ connection: ConnectionContext, _ method: String
    ) throws -> GalleryCapability {
        guard connection.transport == .controlSocket else { throw DaemonFailure.askedFromTheGallery(method: method) }
        guard let gallery else { throw DaemonFailure.galleryOff }
        return gallery
    }
}
