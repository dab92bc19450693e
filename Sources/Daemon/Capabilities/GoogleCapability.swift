import Clocks
import Editing
import GooglePhotos
import HTTP
import Library
import Logging
import Shared
import Store
import Sync

/// Google Photos as a source: splashd's own authorisation with Google, and the imports of
/// what the person picks. Nil parts when no Desktop client is configured; every google.* method then
/// says how to configure one.
struct GoogleCapability: Sendable {
    let authorization: GoogleAuthorization?
    let picks: PicksImporter?

    static func make(
        config: DaemonConfig, store: Store, directories: DaemonDirectories, importer: PhotoImporter, state: DaemonState,
        renditions: ScreenRenditions<AnyClock<Duration>>?, http clients: HTTPClients, background: BackgroundGate, logger: Logger,
        ended: @escaping @Sendable (String) -> Void = { _ in }
    ) -> GoogleCapability {
        guard let clientId = config.googleClientId, let secret = config.googleClientSecret, !clientId.isEmpty, !secret.isEmpty else {
            return GoogleCapability(authorization: nil, picks: nil)
        }
        let http: HTTPClient
        do {
            http = try clients.client(config.httpConfiguration, label: "splashd.google")
        } catch {
            logger.error("no Google: \(error)", metadata: ["splashd_op": "start"])
            return GoogleCapability(authorization: nil, picks: nil)
        }
        let settings = GoogleSettings(
            clientId: clientId, clientSecret: secret, authURL: config.googleAuthURL, tokenURL: config.googleTokenURL,
            revokeURL: config.googleRevokeURL, pickerURL: config.googlePickerURL)
        let authorization = GoogleAuthorization(
            settings: settings, http: http, stateDirectory: directories.state, logger: logger, ended: ended)
        let picks = PicksImporter(
            store: store, api: PickerAPI(settings: settings, http: http, authorization: authorization, pageSize: config.googlePickerPageSize),
            importer: importer, dataDirectory: directories.data, maxFileBytes: Int64(config.imagesMaxFileMiB) << 20,
            progress: { progress in state.bus.publish(.importProgress(progress)) },
            imported: { photos in
                // As a folder's import (the importer announced each): a screen copy of a large one.
                for photo in photos where photo.width * photo.height > ScreenRendition.worthwhilePixels {
                    renditions?.wanted(photoId: photo.id, source: photo.path)
                }
            }, mayDownload: { background.allowsTransfers }, logger: logger)
        return GoogleCapability(authorization: authorization, picks: picks)
    }
}
