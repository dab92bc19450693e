import Foundation
import HTTP
import Logging

/// Unsplash's API terms: a photo used in an app counts as one download, through
/// `GET /photos/<id>/download`. The image queue calls this after a photo's library file is recorded,
/// so at most once per photo; a failure is logged, not retried. Without a key nothing is tracked.
public struct UnsplashDownloadTracker: Sendable {
    let http: HTTPClient
    let apiURL: String
    let accessKey: String?
    let logger: Logger

    public init(http: HTTPClient, apiURL: String, accessKey: String?, logger: Logger) {
        self.http = http
        self.apiURL = apiURL
        self.accessKey = accessKey
        self.logger = logger
    }

    /// `photoId` is the store's id (`unsplash:<remote id>`); other sources' photos are not counted.
    public func track(photoId: String) async {
        guard photoId.hasPrefix("unsplash:"), let key = accessKey, !key.isEmpty else { return }
        let remoteId = String(photoId.dropFirst("unsplash:".count))
        let id = remoteId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? remoteId
        let url = (apiURL.hasSuffix("/") ? String(apiURL.dropLast()) : apiURL) + "/photos/\(id)/download"
        do {
            let response = try await http.send(HTTPRequest(url: url, headers: [("Authorization", "Client-ID \(key)")], timeout: .seconds(30)))
            if !(200..<300).contains(response.status) {
                logger.warning("Unsplash download tracking failed", metadata: [
                    "splashd_op": "images", "splashd_photo": "\(photoId)", "splashd_http_status": "\(response.status)",
                ])
            }
        } catch {
            logger.warning("Unsplash download tracking failed: \(error)", metadata: ["splashd_op": "images", "splashd_photo": "\(photoId)"])
        }
    }
}
