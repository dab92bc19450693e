import Shared
import Sync

/// What the daemon's own parts (not the domain's modules, which throw their own) refuse with; each case
/// is put into the protocol's terms by `WireErrors`, in one place.
enum DaemonFailure: Error, Equatable {
    /// The store holds no such photo.
    case photoNotInStore(id: String)
    /// No picture of the photo is here, and none can be fetched (no image capability: offline).
    case noPictureHere(id: String, offline: Bool)
    /// Fetching a picture of the photo failed (`transient`: waiting may help).
    case pictureNotFetched(id: String, reason: String, transient: Bool)
    case pictureCannotBeDrawn(id: String, path: String, reason: String)
    /// The original an edit needs is not here and cannot be fetched now (no image capability).
    case originalNotHereOffline(id: String)
    case originalNotFetched(id: String, reason: String, transient: Bool)
    /// inotify could not be had: folders cannot be watched.
    case watchingUnavailable
    /// A person's import while another runs.
    case importRunning(path: String)
    case folderNotWatched(path: String)
    /// A request that needs an account, signed out; the words say what signing in is for.
    case notSignedIn(DaemonText)
    case noAccountServer
    case photoSourcesUnavailable
    case notFollowing(kind: String, value: String)
    case noPicturesFolder
    case picturesExportOff(folder: String)
    /// `web.enabled` is off.
    case galleryOff
    /// The gallery's port could not be had.
    case galleryNotListening(reason: String)
    /// A method that opens or ends gallery sessions, asked from a gallery connection.
    case askedFromTheGallery(method: String)
    /// The connection is closing: it takes no new subscription.
    case connectionClosing
    case unknownSubscription(Int)
}

extension WireErrors {
    static func daemon(_ failure: DaemonFailure) -> RPCError {
        switch failure {
        case .photoNotInStore(let id): RPCError(.notFound, .photoNotInStore(id: id), field: "id")
        case .noPictureHere(let id, let offline): RPCError(offline ? .offline : .notFound, .noPictureHere(id: id))
        case .pictureNotFetched(let id, let reason, let transient):
            RPCError(transient ? .offline : .notFound, .noPictureHereBecause(id: id, reason: reason))
        case .pictureCannotBeDrawn(let id, let path, let reason):
            RPCError(.invalidInput, .pictureCannotBeDrawn(id: id, path: path, reason: reason), field: "id")
        case .originalNotHereOffline(let id): RPCError(.offline, .originalNotHereOffline(id: id))
        case .originalNotFetched(let id, let reason, let transient):
            RPCError(transient ? .offline : .notFound, .originalDownloadFailed(id: id, reason: reason))
        case .watchingUnavailable: RPCError(.internalError, .watchingUnavailable)
        case .importRunning(let path): RPCError(.busy, .importRunning(path: path), retryAfter: 5)
        case .folderNotWatched(let path): RPCError(.notFound, .folderNotWatched(path: path), field: "path")
        case .notSignedIn(let text): RPCError(.notSignedIn, text)
        case .noAccountServer: RPCError(.offline, .noAccountServerToSyncWith)
        case .photoSourcesUnavailable: RPCError(.offline, .photoSourcesUnavailable)
        case .notFollowing(let kind, let value): RPCError(.notFound, .notFollowing(kind: kind, value: value), field: "feed")
        case .noPicturesFolder: RPCError(.conflict, .noPicturesFolder)
        case .picturesExportOff(let folder): RPCError(.conflict, .picturesExportOff(folder: folder))
        case .galleryOff: RPCError(.conflict, .galleryOff)
        case .galleryNotListening(let reason): RPCError(.conflict, .galleryNotListening(reason: reason))
        case .askedFromTheGallery(let method): RPCError(.permissionDenied, .askedFromTheGallery(method: method))
        case .connectionClosing: RPCError(.busy, .connectionClosing)
        case .unknownSubscription(let id): RPCError(.notFound, .unknownSubscription(subscription: id), field: "subscription")
        }
    }

    /// An image that did not come, for a picture or an edit's original.
    static func image(_ failure: ImageFailure, photoId: String, forEdit: Bool) -> DaemonFailure {
        forEdit
            ? .originalNotFetched(id: photoId, reason: failure.message, transient: failure.transient)
            : .pictureNotFetched(id: photoId, reason: failure.message, transient: failure.transient)
    }
}
