import GooglePhotos
import HTTP
import Logging

/// Google Photos as a source (issue 22): splashd's own authorisation with Google. Nil authorisation when
/// no Desktop client is configured; every google.* method then says how to configure one.
struct GoogleCapability: Sendable {
    let authorization: GoogleAuthorization?

    static func make(config: DaemonConfig, directories: DaemonDirectories, logger: Logger) -> GoogleCapability {
        guard let clientId = config.googleClientId, let secret = config.googleClientSecret, !clientId.isEmpty, !secret.isEmpty else {
            return GoogleCapability(authorization: nil)
        }
        let http: HTTPClient
        do {
            http = try HTTPClient(configuration: config.httpConfiguration, logger: Logger(label: "splashd.google"))
        } catch {
            logger.error("no Google: \(error)", metadata: ["splashd_op": "start"])
            return GoogleCapability(authorization: nil)
        }
        let settings = GoogleSettings(
            clientId: clientId, clientSecret: secret, authURL: config.googleAuthURL, tokenURL: config.googleTokenURL,
            revokeURL: config.googleRevokeURL, pickerURL: config.googlePickerURL)
        return GoogleCapability(
            authorization: GoogleAuthorization(settings: settings, http: http, stateDirectory: directories.state, logger: logger))
    }
}
