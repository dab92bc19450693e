import Foundation
import Support

/// What Google gave for the person's consent, kept in `<state dir>/google.json`, mode 0600, written
/// atomically: the refresh token outlives the daemon; the access token lasts about an hour.
public struct GoogleTokens: Codable, Sendable, Equatable {
    public var accessToken: String
    public var refreshToken: String
    public var expiresAt: Date
    public var scope: String
    public var connectedAt: Date
}

/// The tokens' file: read at start, replaced on every change, removed on disconnect.
public struct GoogleTokenFile: Sendable {
    public let path: String

    public init(directory: String) {
        path = directory + "/google.json"
    }

    /// Nil when there is none (never connected, or disconnected) or it cannot be read as tokens.
    public func load() -> GoogleTokens? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(GoogleTokens.self, from: data)
    }

    public func save(_ tokens: GoogleTokens) throws(FileError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(tokens)) ?? Data()
        try DurableFile.replace(path, with: data, mode: 0o600)
    }

    public func remove() {
        unlink(path)
        DurableFile.syncDirectory(of: path)
    }
}
