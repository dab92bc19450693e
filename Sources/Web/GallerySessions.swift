import Clocks
import Crypto
import Foundation
import Support
import Synchronization

/// Who may use the web gallery. The person at the control socket asks for a one-time token
/// (`issueToken`); the browser trades it, once and within `tokenLife`, for a session cookie
/// (`redeem`); every request then shows the cookie (`admits`). A cookie is the session's id and
/// expiry signed with the daemon's secret (HMAC-SHA-256, checked in constant time): it outlives a
/// restart of the daemon, and replacing the secret (`revokeAll`) ends every session at once.
///
/// Tokens are kept only as their SHA-256, looked up by it: how long a lookup takes says nothing of
/// the token itself. The secret is a file of the state directory, mode 0600, never logged.
public final class GallerySessions: Sendable {
    /// How long a token opens the gallery.
    public static let tokenLife: Duration = .seconds(120)
    /// How long a session lasts without a new `splashctl open`.
    public static let sessionLife: TimeInterval = 30 * 24 * 3600

    private struct State {
        var key: SymmetricKey
        /// SHA-256 of each token not yet used → when it stops opening anything.
        var tokens: [String: AnyClock<Duration>.Instant] = [:]
        /// SHA-256 of each cookie the current key was found to have signed → when it expires.
        var admitted: [Crypto.SHA256Digest: Int64] = [:]
    }

    private let secretPath: String
    private let clock: AnyClock<Duration>
    private let now: @Sendable () -> Date
    private let state: Mutex<State>
    /// Moves on every `revokeAll`: the gallery's open connections end when it does.
    public let revoked = ChangeSignal()

    /// Reads the secret, or makes one when there is none (or it is not 32 bytes).
    public init(secretPath: String, clock: AnyClock<Duration>, now: @escaping @Sendable () -> Date = Date.init) throws(FileError) {
        self.secretPath = secretPath
        self.clock = clock
        self.now = now
        let kept = FileManager.default.contents(atPath: secretPath).flatMap { $0.count == 32 ? SymmetricKey(data: $0) : nil }
        let key: SymmetricKey
        if let kept { key = kept } else { key = try Self.newSecret(at: secretPath) }
        state = Mutex(State(key: key))
    }

    /// A token for one visit within `tokenLife`: 128 random bits, URL-safe.
    public func issueToken() -> String {
        let token = Self.base64URL(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
        let deadline = clock.now.advanced(by: Self.tokenLife)
        state.withLock { state in
            let now = clock.now
            state.tokens = state.tokens.filter { $0.value > now }
            state.tokens[Self.digest(token)] = deadline
        }
        return token
    }

    /// The session cookie's value for a token not used before and not expired; nil otherwise. A
    /// token is used up by being shown, whether or not it was still good.
    public func redeem(_ token: String) -> String? {
        let key = Self.digest(token)
        let deadline = state.withLock { $0.tokens.removeValue(forKey: key) }
        guard let deadline, clock.now < deadline else { return nil }
        return cookie(session: SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }, expires: now().addingTimeInterval(Self.sessionLife))
    }

    /// Whether `cookie` is a session this daemon's current secret signed, not yet expired.
    ///
    /// A cookie admitted once is known again by its SHA-256 (`State.admitted`), as a token is: every
    /// thumbnail of a grid shows the same cookie, and taking it apart and checking its signature each
    /// time was a tenth of a thumbnail's answer.
    public func admits(cookie: String) -> Bool {
        let digest = Crypto.SHA256.hash(data: Array(cookie.utf8))
        let (known, key) = state.withLock { ($0.admitted[digest], $0.key) }
        if let known { return Date(timeIntervalSince1970: TimeInterval(known)) > now() }
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let expires = Int64(parts[1]), let mac = Self.data(base64URL: String(parts[2])) else { return false }
        guard Date(timeIntervalSince1970: TimeInterval(expires)) > now() else { return false }
        guard HMAC<Crypto.SHA256>.isValidAuthenticationCode(mac, authenticating: Data("\(parts[0]).\(parts[1])".utf8), using: key) else {
            return false
        }
        state.withLock { state in
            // Signed by the secret of now: a cookie checked across `revokeAll` is not remembered.
            guard state.key == key else { return }
            if state.admitted.count >= Self.admittedLimit { state.admitted.removeAll() }
            state.admitted[digest] = expires
        }
        return true
    }

    /// Cookies remembered as admitted: a few browsers' sessions, each a line.
    static let admittedLimit = 64

    /// Ends every session and every token not yet used: a new secret signs from now on.
    public func revokeAll() throws(FileError) {
        let key = try Self.newSecret(at: secretPath)
        state.withLock { state in
            state.key = key
            state.tokens = [:]
            state.admitted = [:]
        }
        revoked.signal()
    }

    private func cookie(session: Data, expires: Date) -> String {
        let signed = "\(Self.base64URL(session)).\(Int64(expires.timeIntervalSince1970))"
        let key = state.withLock { $0.key }
        let mac = Data(HMAC<Crypto.SHA256>.authenticationCode(for: Data(signed.utf8), using: key))
        return signed + "." + Self.base64URL(mac)
    }

    private static func newSecret(at path: String) throws(FileError) -> SymmetricKey {
        let key = SymmetricKey(size: .bits256)
        // Whole or not at all: a session signed by a secret half written would be lost with it.
        try DurableFile.replace(path, with: key.withUnsafeBytes { Data($0) }, mode: 0o600)
        return key
    }

    private static func digest(_ token: String) -> String {
        FileDigest.hex(Support.SHA256.hash(Array(token.utf8)))
    }

    // Byte by byte, not by `replacingOccurrences`: a cookie is read back for every request the page
    // makes, each thumbnail of a grid included, and Foundation's string replacing was half its cost.
    static func base64URL(_ data: Data) -> String {
        let bytes = Array(data.base64EncodedData()).compactMap { byte -> UInt8? in
            switch byte {
            case UInt8(ascii: "+"): UInt8(ascii: "-")
            case UInt8(ascii: "/"): UInt8(ascii: "_")
            case UInt8(ascii: "="): nil
            default: byte
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func data(base64URL text: String) -> Data? {
        var bytes = text.utf8.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: byte
            }
        }
        bytes += repeatElement(UInt8(ascii: "="), count: (4 - bytes.count % 4) % 4)
        // One spelling per value: a last character that differs only in the bits past the data (which
        // the decoder drops) would otherwise be a second cookie that the same signature admits.
        guard let decoded = Data(base64Encoded: Data(bytes)), base64URL(decoded) == text else { return nil }
        return decoded
    }
}
