import Foundation
import Support

/// RFC 7636's proof key: a random verifier kept here and its S256 challenge sent with the authorisation
/// request, so that a code intercepted on its way back (another program on this machine listening for
/// it) is useless without the verifier. Also the random `state` a flow checks on its way back.
public struct PKCE: Sendable, Equatable {
    /// 64 random bytes, base64url without padding: 86 characters of `[A-Za-z0-9_-]` (RFC 7636 allows
    /// 43 to 128; supabase-swift uses the same 64 bytes).
    public let verifier: String
    /// BASE64URL-NOPAD(SHA256(verifier)).
    public let challenge: String

    public init(verifier: String) {
        self.verifier = verifier
        challenge = Self.base64URL(SHA256.hash(Array(verifier.utf8)))
    }

    public static func make() -> PKCE {
        PKCE(verifier: randomToken(bytes: 64))
    }

    /// `bytes` random bytes from the system's generator (getrandom), base64url without padding.
    public static func randomToken(bytes: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
