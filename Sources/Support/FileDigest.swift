/// SHA-256 of a file on disk, as the store records it: for what a download produced when no checksum
/// was known in advance, an edit's rendering, an imported file (whose id it makes).
public enum FileDigest {
    /// Lower-case hex SHA-256 of the file at `path`.
    public static func sha256Hex(path: String) throws(FileError) -> String {
        hex(try SHA256.hash(filePath: path))
    }

    /// A digest as the store records it: lower-case hex.
    public static func hex(_ digest: [UInt8]) -> String {
        let digits: [Character] = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return text
    }
}
