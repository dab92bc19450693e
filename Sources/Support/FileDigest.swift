/// SHA-256 of a file on disk, as the store records it: for what a download produced when no checksum
/// was known in advance, an edit's rendering, an imported file (whose id it makes).
public enum FileDigest {
    /// Lower-case hex SHA-256 of the file at `path`.
    public static func sha256Hex(path: String) throws(FileError) -> String {
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
