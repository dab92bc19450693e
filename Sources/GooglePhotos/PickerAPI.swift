import Foundation
import HTTP

/// The Google Photos Picker API (`https://photospicker.googleapis.com/v1`): picking sessions, the items
/// the person picked, and their bytes. Every call carries the Bearer token; one refused (401) refreshes
/// it once and asks again, and a second refusal ends the connection (`GoogleAuthorization`).
public struct PickerAPI: Sendable {
    public struct Session: Sendable, Equatable {
        public var id: String
        public var pickerUri: String
        public var pollInterval: Duration
        public var timeoutIn: Duration
        public var mediaItemsSet: Bool
    }

    public struct Item: Sendable, Equatable {
        public var id: String
        public var type: String
        public var createTime: Date?
        public var baseUrl: String
        public var mimeType: String?
        public var filename: String?
        public var width: Int?
        public var height: Int?
        public var camera: String?
    }

    let settings: GoogleSettings
    let http: HTTPClient
    let authorization: GoogleAuthorization
    /// Items asked per page (the API allows up to 100).
    let pageSize: Int

    public init(settings: GoogleSettings, http: HTTPClient, authorization: GoogleAuthorization, pageSize: Int = 100) {
        self.settings = settings
        self.http = http
        self.authorization = authorization
        self.pageSize = max(1, min(pageSize, 100))
    }

    public func createSession() async throws(GoogleFailure) -> Session {
        try Self.session(try await call("POST", "/v1/sessions", body: Array("{}".utf8)))
    }

    public func session(_ id: String) async throws(GoogleFailure) -> Session {
        try Self.session(try await call("GET", "/v1/sessions/" + FormEncoding.escaped(id)))
    }

    /// Best effort: a session left behind expires at Google by itself.
    public func deleteSession(_ id: String) async {
        _ = try? await call("DELETE", "/v1/sessions/" + FormEncoding.escaped(id))
    }

    /// Every item the person picked, page by page (each with a baseUrl good for an hour).
    public func items(session id: String) async throws(GoogleFailure) -> [Item] {
        var items: [Item] = []
        var token: String?
        repeat {
            var query = "?sessionId=" + FormEncoding.escaped(id) + "&pageSize=\(pageSize)"
            if let token { query += "&pageToken=" + FormEncoding.escaped(token) }
            let page: ItemsPage = try Self.decode(try await call("GET", "/v1/mediaItems" + query))
            items += (page.mediaItems ?? []).map(\.item)
            token = page.nextPageToken
        } while token != nil && !(token?.isEmpty ?? true)
        return items
    }

    /// The original's bytes (`baseUrl=d`) into `destination` (its `.part` resumed), at most `maxBytes`.
    /// A 403 — the baseUrl past its hour — is `GoogleFailure.refused("expired", …)`: list the items again.
    public func download(_ item: Item, to destination: String, maxBytes: Int64) async throws(GoogleFailure) {
        var token = try await authorization.accessToken()
        var refreshed = false
        while true {
            do {
                _ = try await http.download(
                    HTTPRequest(url: item.baseUrl + "=d", headers: [("Authorization", "Bearer " + token)], timeout: .seconds(300), followRedirects: true),
                    to: destination, maxBytes: maxBytes, syncDirectory: false)
                return
            } catch .http(let status, _, _) where status == 401 && !refreshed {
                refreshed = true
                token = try await authorization.refresh()
            } catch .http(let status, _, _) where status == 403 {
                throw .refused(error: "expired", description: "the item's download address has expired")
            } catch .http(let status, _, _) {
                throw .refused(error: "HTTP \(status)", description: "Google refused the download")
            } catch {
                throw .unreachable("\(error)")
            }
        }
    }

    // MARK: Calls

    private func call(_ method: String, _ path: String, body: [UInt8]? = nil) async throws(GoogleFailure) -> [UInt8] {
        var token = try await authorization.accessToken()
        var refreshed = false
        while true {
            var headers = [("Authorization", "Bearer " + token), ("Accept", "application/json")]
            if body != nil { headers.append(("Content-Type", "application/json")) }
            let response: HTTPResponse
            do {
                response = try await http.send(HTTPRequest(method: method, url: settings.pickerURL + path, headers: headers, body: body, timeout: .seconds(30)))
            } catch {
                throw .unreachable("\(error)")
            }
            if response.status == 401 && !refreshed {
                refreshed = true
                token = try await authorization.refresh()
                continue
            }
            guard response.isSuccess else {
                let refusal = try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body))
                if response.status == 401 {
                    throw .notConnected(reason: "Google refused the access token (\(refusal?.error.message ?? "HTTP 401"))")
                }
                throw .refused(error: refusal?.error.status ?? "HTTP \(response.status)", description: refusal?.error.message ?? "")
            }
            return response.body
        }
    }

    static func session(_ body: [UInt8]) throws(GoogleFailure) -> Session {
        let wire: SessionBody = try decode(body)
        return Session(
            id: wire.id, pickerUri: wire.pickerUri, pollInterval: duration(wire.pollingConfig?.pollInterval) ?? .seconds(5),
            timeoutIn: duration(wire.pollingConfig?.timeoutIn) ?? .seconds(1800), mediaItemsSet: wire.mediaItemsSet ?? false)
    }

    static func decode<T: Decodable>(_ body: [UInt8]) throws(GoogleFailure) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch {
            throw .unreachable("an answer from the Picker API splashd cannot read: \(error)")
        }
    }

    /// A protobuf Duration in JSON: `"5s"`, `"0.2s"`, `"1800s"`.
    static func duration(_ text: String?) -> Duration? {
        guard let text, text.hasSuffix("s"), let seconds = Double(text.dropLast()), seconds >= 0 else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    // MARK: Wire shapes

    struct SessionBody: Decodable {
        struct Polling: Decodable {
            var pollInterval: String?
            var timeoutIn: String?
        }
        var id: String
        var pickerUri: String
        var pollingConfig: Polling?
        var mediaItemsSet: Bool?
    }

    struct ItemsPage: Decodable {
        var mediaItems: [WireItem]?
        var nextPageToken: String?
    }

    struct WireItem: Decodable {
        struct MediaFile: Decodable {
            struct Metadata: Decodable {
                var width: Int?
                var height: Int?
                var cameraMake: String?
                var cameraModel: String?
            }
            var baseUrl: String
            var mimeType: String?
            var filename: String?
            var mediaFileMetadata: Metadata?
        }
        var id: String
        var createTime: String?
        var type: String?
        var mediaFile: MediaFile

        var item: Item {
            let metadata = mediaFile.mediaFileMetadata
            let camera = [metadata?.cameraMake, metadata?.cameraModel].compactMap { $0 }.joined(separator: " ")
            return Item(
                id: id, type: type ?? "TYPE_UNSPECIFIED", createTime: createTime.flatMap { ISO8601DateFormatter().date(from: $0) },
                baseUrl: mediaFile.baseUrl, mimeType: mediaFile.mimeType, filename: mediaFile.filename, width: metadata?.width,
                height: metadata?.height, camera: camera.isEmpty ? nil : camera)
        }
    }

    struct ErrorBody: Decodable {
        struct Detail: Decodable {
            var message: String?
            var status: String?
        }
        var error: Detail
    }
}
