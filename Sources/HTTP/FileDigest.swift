/// SHA-256 of a file on disk, for callers outside this module that record a checksum of what a download
/// produced when none was known in advance (the image queue); the hashing itself stays internal.
public enum FileDigest {
    /// Lower-case hex SHA-256 of the file at `path`.
    public static func sha256Hex(path: String) throws(HTTPError) -> String {
        let digest = try SHA256.hash(filePath: path)
        let hex: [Character] = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(64)
        for byte in digest {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0f)])
        }
        return text
    }
}
